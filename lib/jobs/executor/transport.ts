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
type RouteHandler = (req: never, ctx: never) => Promise<Response | void> | Response | void;

/**
 * Calls the serve route's handlers directly (the server, tests, benchmarks): the same signed
 * requests, no socket. The request and the response are the plain objects of Next.js's API-route
 * convention (`req.headers`, `req.text()`, `req.url`, `req.method`; `res.status()`,
 * `res.setHeader()`, `res.send()`), which the SDK's Next.js adapter serves as it serves an app
 * route: no fetch `Request` and `Response` to build, stream and read back on every call
 * (tests/jobs/protocol-pin.test.ts pins it). A handler that answers with a `Response` instead is
 * read as one.
 */
export function inProcessTransport(handlers: { POST: RouteHandler; PUT: RouteHandler }): Transport {
  return async (req) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = v;
    const request = { method: req.method, url: req.url, headers: { get: (name: string) => headers[name.toLowerCase()] ?? null }, text: async () => req.body };
    const answer: CallAnswer = { status: 0, headers: {}, body: "" };
    let sent = false;
    const response = {
      setHeader: (name: string, value: string | number | readonly string[]) => void (answer.headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : String(value)),
      status: (code: number) => void (answer.status = code),
      send: (body: unknown) => {
        sent = true;
        answer.body = typeof body === "string" ? body : body === undefined || body === null ? "" : Buffer.isBuffer(body) ? body.toString("utf8") : JSON.stringify(body);
      },
    };
    const res = await handlers[req.method](request as never, response as never);
    if (res instanceof Response) {
      res.headers.forEach((v, k) => (answer.headers[k] = v));
      return { status: res.status, headers: answer.headers, body: await res.text() };
    }
    if (!sent) throw new Error(`the serve route answered neither a Response nor through res.send (${req.method} ${req.url})`);
    return answer;
  };
}
