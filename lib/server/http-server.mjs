// @ts-check
import http from "node:http";

/** Where instrumentation publishes the routes answered before Next.js (lib/server/direct-routes.ts). */
export const DIRECT_ROUTES = Symbol.for("easel.directRoutes");

/**
 * The request header in which the server hands the TCP peer's address to the app
 * (lib/http/client-address.ts). Set on every request, after deleting any header of that name the
 * client sent, so no client can choose its own address.
 */
export const CLIENT_ADDRESS_HEADER = "x-easel-client-address";

/** Where the server publishes that header's name: the app trusts the header only when this is set. */
const CLIENT_ADDRESS_HEADER_KEY = Symbol.for("easel.clientAddressHeader");

/**
 * The HTTP timeouts that bound a slow or stalled client: all of a request's headers within 60 s,
 * the whole request (body included) within 300 s, idle keep-alive connections closed after 5 s.
 * They are Node's defaults, stated here so that they are Easel's decision (docs/reliability.md).
 */
export const TIMEOUTS = Object.freeze({ headersTimeout: 60_000, requestTimeout: 300_000, keepAliveTimeout: 5_000 });

/**
 * Easel's HTTP server: a request that a direct route serves (published by instrumentation once
 * the database is open) is answered from the node:http request itself; every other request, and
 * every request before that, goes to Next.js, whose routes wait for start-up themselves.
 *
 * @param {(req: http.IncomingMessage, res: http.ServerResponse) => Promise<unknown>} nextHandler
 * @param {{ headersTimeout?: number, requestTimeout?: number, keepAliveTimeout?: number, connectionsCheckingInterval?: number }} [overrides]
 *   tests scale the timeouts down
 */
export function createEaselServer(nextHandler, overrides = {}) {
  const { keepAliveTimeout, ...options } = { ...TIMEOUTS, ...overrides };
  /** @type {any} */ (globalThis)[CLIENT_ADDRESS_HEADER_KEY] = CLIENT_ADDRESS_HEADER;
  const server = http.createServer(options, (req, res) => {
    delete req.headers[CLIENT_ADDRESS_HEADER];
    if (req.socket.remoteAddress) req.headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress;
    /** @type {((req: http.IncomingMessage, res: http.ServerResponse) => boolean) | undefined} */
    const direct = /** @type {any} */ (globalThis)[DIRECT_ROUTES];
    if (direct?.(req, res)) return;
    nextHandler(req, res).catch((err) => {
      console.error(`[easel] ${req.method} ${req.url} failed`, err);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.keepAliveTimeout = keepAliveTimeout;
  return server;
}
