import http from "node:http";
import https from "node:https";
import type { StorageSend } from "./types";

/**
 * Node: node:http straight, with kept-alive connections. A part is 8 MiB already in memory; sent
 * through fetch (undici) it cost this process about twice the CPU of a plain request
 * (bench/client), and on a machine whose other core runs the store that is throughput.
 */
const agents = { "http:": new http.Agent({ keepAlive: true, maxSockets: 64 }), "https:": new https.Agent({ keepAlive: true, maxSockets: 64 }) };

export const sendToStorage: StorageSend = (method, url, opts) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const protocol = target.protocol === "https:" ? "https:" : "http:";
    const request = (protocol === "https:" ? https : http).request(
      target,
      { method, agent: agents[protocol], signal: opts.signal, headers: { ...opts.headers, "content-length": String(opts.body?.byteLength ?? 0) } },
      (response) => {
        const chunks: Buffer[] = [];
        const body = new Promise<string>((done, fail) => {
          response.on("data", (c: Buffer) => chunks.push(c));
          response.on("end", () => done(Buffer.concat(chunks).toString("utf8")));
          response.on("error", fail);
        });
        // Read to the end either way, so the connection goes back to the pool.
        body.catch(() => undefined);
        resolve({
          status: response.statusCode ?? 0,
          header: (name) => {
            const value = response.headers[name.toLowerCase()];
            return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
          },
          text: () => body,
        });
      },
    );
    request.on("error", reject);
    request.end(opts.body ?? undefined);
  });
