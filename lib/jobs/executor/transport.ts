import http from "node:http";
import https from "node:https";
import type { CallAnswer } from "./protocol";

export type CallRequest = { method: "POST" | "PUT"; url: string; headers: Record<string, string>; body: string };
/** How the executor reaches the serve handlers: in-process in the server and tests, or over HTTP. */
export type Transport = (req: CallRequest) => Promise<CallAnswer>;

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

/**
 * node:http rather than fetch: undici's fetch gives up after 300 s without response headers, and
 * a step (a video encode) may run far longer than that before the SDK answers. No timeout is
 * set; a call that hangs keeps its lease renewed, and a dead process stops renewing it.
 */
export function httpTransport(): Transport {
  return (req) =>
    new Promise<CallAnswer>((resolve, reject) => {
      const url = new URL(req.url);
      const lib = url.protocol === "https:" ? https : http;
      const request = lib.request(
        url,
        {
          method: req.method,
          agent: url.protocol === "https:" ? agents.https : agents.http,
          headers: { ...req.headers, "content-length": Buffer.byteLength(req.body).toString() },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", reject);
          res.on("end", () => {
            const headers: Record<string, string> = {};
            for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
            resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString("utf8") });
          });
        },
      );
      request.on("error", reject);
      request.end(req.body);
    });
}

/** A route handler of any framework flavour (Next.js types its request as NextRequest). */
type RouteHandler = (req: never, ctx: never) => Promise<Response> | Response;

/** Calls the serve route's handlers directly (the server, tests, benchmarks): the same signed requests, no socket. */
export function inProcessTransport(handlers: { POST: RouteHandler; PUT: RouteHandler }): Transport {
  return async (req) => {
    const request = new Request(req.url, { method: req.method, headers: req.headers, body: req.body });
    const res = await handlers[req.method](request as never, { params: Promise.resolve({}) } as never);
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    return { status: res.status, headers, body: await res.text() };
  };
}
