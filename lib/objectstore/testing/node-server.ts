import http from "node:http";
import type { AddressInfo } from "node:net";
import { answerWith, type WebHandler } from "../../server/node-bridge";

export type { WebHandler };
export type RunningServer = { origin: string; server: http.Server; close: () => Promise<void> };

/**
 * Serves a fetch-style handler (the same functions the app/storage route files call) on a
 * loopback node:http server, so tests and the benchmark drive the store over real HTTP with real
 * clients, streaming both ways.
 */
export async function listen(handler: WebHandler, opts: { likeNext?: boolean } = {}): Promise<RunningServer> {
  const server = http.createServer((req, res) => {
    void answerWith(handler, req, res, opts);
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
