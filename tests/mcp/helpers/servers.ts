import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";

export type Pem = { key: string; cert: string };

/** A throwaway self-signed certificate (it is its own CA) for the given names and addresses. */
export function selfSignedCert(names: { dns?: string[]; ips?: string[] } = { ips: ["127.0.0.1"] }): Pem {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-cert-"));
  try {
    const san = [...(names.dns ?? []).map((d) => `DNS:${d}`), ...(names.ips ?? []).map((i) => `IP:${i}`)].join(",");
    const key = path.join(dir, "key.pem");
    const cert = path.join(dir, "cert.pem");
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=easel-test", "-addext", `subjectAltName=${san}`],
      { stdio: "ignore" },
    );
    return { key: fs.readFileSync(key, "utf8"), cert: fs.readFileSync(cert, "utf8") };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export type TestServer = { port: number; origin: string; close: () => Promise<void> };

/** An HTTPS (with `pem`) or HTTP server on 127.0.0.1 and a free port. */
export async function startServer(handler: http.RequestListener, pem?: Pem): Promise<TestServer> {
  const server = pem ? https.createServer({ key: pem.key, cert: pem.cert }, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `${pem ? "https" : "http"}://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes `total` bytes in 64 KiB chunks, stopping early if the client goes away; resolves with the bytes written. */
export function streamBytes(res: http.ServerResponse, total: number, fill = 0x61): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024, fill);
  let sent = 0;
  return new Promise((resolve) => {
    const finish = () => resolve(sent);
    res.on("close", finish);
    const pump = () => {
      while (sent < total && !res.destroyed) {
        const part = chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += part.length;
        if (!res.write(part)) return void res.once("drain", pump);
      }
      if (!res.destroyed) res.end();
    };
    pump();
  });
}
