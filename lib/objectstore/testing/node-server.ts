import http from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

export type WebHandler = (req: Request) => Promise<Response>;
export type RunningServer = { origin: string; server: http.Server; close: () => Promise<void> };

/**
 * Serves a fetch-style handler (the same functions the app/storage route files call) on a
 * loopback node:http server, so tests and the benchmark drive the store over real HTTP with real
 * clients, streaming both ways.
 */
export async function listen(handler: WebHandler, opts: { likeNext?: boolean } = {}): Promise<RunningServer> {
  const server = http.createServer((req, res) => {
    void answer(handler, req, res, opts.likeNext ?? false);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Headers Next.js (16) leaves out when it sends a route handler's answer. */
const DROPPED_BY_NEXT = new Set(["content-length", "content-encoding", "transfer-encoding"]);

/**
 * `likeNext` answers as `next start` does: without Content-Length (and Content-Encoding,
 * Transfer-Encoding), whatever the handler set, so tests see what clients of Easel see.
 */
async function answer(handler: WebHandler, req: http.IncomingMessage, res: http.ServerResponse, likeNext: boolean) {
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
    }
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, {
      method: req.method,
      headers,
      // The request itself, as an async iterable (as Next.js passes it): undici pulls chunks as
      // the handler reads. (Readable.toWeb would queue one chunk at a time and cost throughput.)
      body: hasBody ? (req as unknown as BodyInit) : undefined,
      duplex: "half",
    } as RequestInit);
    const response = await handler(request);
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (!(likeNext && DROPPED_BY_NEXT.has(name))) out[name] = value;
    });
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
    console.error("[node-server] handler failed", err);
    if (!res.headersSent) res.writeHead(500);
    res.end();
  }
}
