import type http from "node:http";
import { Readable } from "node:stream";
import { attachNodeBody } from "../http/request-body";
import { log } from "../log/logger.mjs";

export type WebHandler = (req: Request) => Promise<Response>;

/** Headers Next.js (16) leaves out when it sends a route handler's answer. */
const DROPPED_BY_NEXT = new Set(["content-length", "content-encoding", "transfer-encoding"]);

/**
 * Answers a node:http request with a fetch-style handler (the functions the route files call),
 * streaming both ways: the request body reaches the handler as the node stream itself and the
 * answer's body is piped to the socket, so no body is ever held whole.
 *
 * `likeNext` answers as a route handler under Next.js does: without Content-Length (and
 * Content-Encoding, Transfer-Encoding), whatever the handler set; tests use it to see what clients
 * of the route files see.
 */
export async function answerWith(handler: WebHandler, req: http.IncomingMessage, res: http.ServerResponse, opts: { likeNext?: boolean } = {}) {
  try {
    const response = await handler(toWebRequest(req));
    const out: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      if (!(opts.likeNext && DROPPED_BY_NEXT.has(name))) out[name] = value;
    });
    // Each cookie is a header of its own (forEach gives them one by one, the last would win).
    const cookies = response.headers.getSetCookie();
    if (cookies.length) out["set-cookie"] = cookies;
    res.writeHead(response.status, out);
    if (!response.body || req.method === "HEAD") {
      res.end();
      return;
    }
    const body = Readable.fromWeb(response.body as never);
    res.on("close", () => body.destroy());
    body.on("error", () => res.destroy());
    body.pipe(res);
  } catch (err) {
    // The path only: a query string may hold a presigned URL's signature (scrubbed anyway).
    log().error({ method: req.method, path: (req.url ?? "/").split("?")[0], headers_sent: res.headersSent, err }, "request failed; answered 500 or cut short");
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
}

function toWebRequest(req: http.IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  const request = new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, {
    method: req.method,
    headers,
    // The request itself, as an async iterable: undici pulls chunks as the handler reads.
    // (Readable.toWeb would queue one chunk at a time and cost throughput.)
    body: hasBody ? (req as unknown as BodyInit) : undefined,
    duplex: "half",
  } as RequestInit);
  if (hasBody) attachNodeBody(request, req);
  return request;
}
