import http from "node:http";
import type net from "node:net";
import { Transform, type TransformCallback } from "node:stream";

export type ThrottleProxy = { origin: string; setRate: (bytesPerSecond: number) => void; close: () => Promise<void> };

/**
 * A reverse proxy that passes request bodies on at a shared rate (all connections together), so a
 * test can stop a client in the middle of a 60 MB upload on loopback. The Host header is kept, so
 * the server hands out storage URLs on the proxy's origin and the client's bytes come through it.
 */
export async function startThrottleProxy(target: string, bytesPerSecond: number): Promise<ThrottleProxy> {
  let rate = bytesPerSecond;
  let nextFree = Date.now();
  const targetUrl = new URL(target);
  /** Time to wait before passing `n` more bytes on, booked on one clock for all connections. */
  const book = (n: number) => {
    if (!Number.isFinite(rate)) return 0;
    const now = Date.now();
    nextFree = Math.max(nextFree, now) + (n / rate) * 1000;
    return Math.max(0, nextFree - now);
  };
  const throttle = () =>
    new Transform({
      transform(chunk: Buffer, _enc, done: TransformCallback) {
        const wait = book(chunk.length);
        if (wait === 0) done(null, chunk);
        else setTimeout(() => done(null, chunk), wait);
      },
    });
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const upstream = http.request({ host: targetUrl.hostname, port: targetUrl.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.rawHeaders as unknown as http.OutgoingHttpHeaders);
      up.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.on("error", () => upstream.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(throttle()).pipe(upstream);
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    setRate: (n) => {
      rate = n;
      nextFree = Date.now();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
