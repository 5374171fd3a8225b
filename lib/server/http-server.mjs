// @ts-check
import crypto, { randomUUID } from "node:crypto";
import http from "node:http";
import { proxyHopsOf } from "../http/forwarded-address.mjs";
import { log, withLogContext } from "../log/logger.mjs";
import { collectProcessMetrics, recordRequest, renderMetrics } from "../metrics/registry.mjs";
import { appRouteMatcher } from "../metrics/routes.mjs";
import { answerBusy } from "./busy-answers.mjs";
import { connectionsPerAddress, maxConnectionsPerAddressFromEnv } from "./connections-per-address.mjs";
import { guardHtmlAnswers } from "./html-answer-headers.mjs";

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
 * a request's body within 300 s of its start, idle keep-alive connections closed after 5 s. An
 * upload body to the storage routes has no total bound (a large part on a slow link may take
 * hours) and is cut only when no byte arrived for `uploadIdleTimeout` (EASEL_UPLOAD_IDLE_TIMEOUT_S,
 * default 120 s). Node's own requestTimeout cannot tell the two apart, so the server keeps both
 * bounds itself (docs/reliability.md).
 */
export const TIMEOUTS = Object.freeze({ headersTimeout: 60_000, requestTimeout: 300_000, keepAliveTimeout: 5_000, uploadIdleTimeout: 120_000 });

/** Where instrumentation publishes the readiness checks (lib/server/readiness.ts). */
export const READINESS = Symbol.for("easel.readiness");

/** A request id a client or proxy may choose: printable, no spaces, bounded. Anything else is replaced. */
const WELL_FORMED_REQUEST_ID = /^[A-Za-z0-9._:@\/+=-]{1,128}$/;

/**
 * The id a request is known by in logs and in its `X-Request-Id` response header: a well-formed
 * incoming one (a proxy's or a client's) is kept, anything else replaced by a new UUID. The app
 * reads it from the request header, which the server overwrites.
 * @param {http.IncomingMessage} req
 */
function requestIdOf(req) {
  const incoming = req.headers["x-request-id"];
  const id = typeof incoming === "string" && WELL_FORMED_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  req.headers["x-request-id"] = id;
  return id;
}

/** @param {http.ServerResponse} res @param {number} status @param {unknown} body */
function sendJson(res, status, body) {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));
}

const CHECKS = /** @type {const} */ (["database", "storage", "jobs"]);

/**
 * `/healthz`: the process serves HTTP (touches nothing). `/readyz`: each dependency answers within
 * 2 s (the checks are the app's, published once it has booted; until then, and while the server
 * stops, nothing is ready). Both are answered before Next.js, so they work while it starts.
 * @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {string} path @param {() => boolean} stopping
 */
function answerHealth(req, res, path, stopping) {
  if (path !== "/healthz" && path !== "/readyz") return false;
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("allow", "GET, HEAD");
    sendJson(res, 405, { status: "method_not_allowed" });
    return true;
  }
  if (path === "/healthz") {
    sendJson(res, 200, { status: "ok" });
    return true;
  }
  /** @type {(() => Promise<Record<string, "ok" | "unavailable">>) | undefined} */
  const readiness = /** @type {any} */ (globalThis)[READINESS];
  const notReady = Object.fromEntries(CHECKS.map((c) => [c, "unavailable"]));
  const checks = !readiness || stopping() ? Promise.resolve(notReady) : readiness().catch((/** @type {Error} */ err) => {
        log().error({ err }, "readiness checks failed to run");
        return notReady;
      });
  void checks.then((result) => {
    const ok = CHECKS.every((c) => result[c] === "ok");
    sendJson(res, ok ? 200 : 503, { status: ok ? "ready" : "not_ready", checks: Object.fromEntries(CHECKS.map((c) => [c, result[c] ?? "unavailable"])) });
  });
  return true;
}

/** EASEL_METRICS_TOKEN: `/metrics` is served only when it is set (and then only to a bearer of it). */
export function metricsTokenFromEnv(value = process.env.EASEL_METRICS_TOKEN) {
  return value === undefined || value === "" ? null : value;
}

/** @param {string} text */
const sha256 = (text) => crypto.createHash("sha256").update(text).digest();

/**
 * Whether an Authorization header carries the metrics token. Both sides are hashed first, so the
 * comparison is of equal lengths and takes the same time wherever the two first differ.
 * @param {string | undefined} header @param {Buffer} tokenDigest
 */
function bearsToken(header, tokenDigest) {
  const match = typeof header === "string" ? /^Bearer +(\S+) *$/i.exec(header) : null;
  return match !== null && crypto.timingSafeEqual(sha256(match[1]), tokenDigest);
}

/**
 * `/metrics`, answered before Next.js: 404 when no token is configured (as any path nothing
 * serves), 401 to anyone without it, else the registry in the Prometheus text format.
 * @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {Buffer | null} tokenDigest
 * @param {() => Promise<{ contentType: string, body: string }>} render
 */
function answerMetrics(req, res, tokenDigest, render) {
  if (!tokenDigest) return sendJson(res, 404, { status: "not_found" });
  if (!bearsToken(req.headers.authorization, tokenDigest)) {
    res.setHeader("www-authenticate", 'Bearer realm="metrics"');
    return sendJson(res, 401, { status: "unauthorized" });
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("allow", "GET, HEAD");
    return sendJson(res, 405, { status: "method_not_allowed" });
  }
  render().then(
    ({ contentType, body }) => {
      res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : body);
    },
    (err) => {
      log().error({ err }, "metrics: the registry could not be rendered");
      if (!res.headersSent) sendJson(res, 500, { status: "error" });
    },
  );
}

/** Routes whose requests are logged at debug level: probes every few seconds, each the same line. */
const PROBES = new Set(["/healthz", "/readyz", "/metrics"]);

/** @param {string} url */
function pathOf(url) {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

/** Paths of the embedded object store's endpoints (lib/objectstore/mounts.ts). */
const STORAGE_PREFIX = "/storage/";

/** EASEL_UPLOAD_IDLE_TIMEOUT_S in ms, or the default; a value that is no positive number stops the start. */
export function uploadIdleTimeoutFromEnv(value = process.env.EASEL_UPLOAD_IDLE_TIMEOUT_S) {
  if (value === undefined || value === "") return TIMEOUTS.uploadIdleTimeout;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`EASEL_UPLOAD_IDLE_TIMEOUT_S must be a positive number of seconds, got "${value}"`);
  return Math.round(seconds * 1000);
}

/**
 * Cuts a request whose body has not fully arrived `ms` after it started (answering 408 when
 * nothing was answered yet, as Node does).
 * @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {number} ms
 */
function boundBodyTotal(req, res, ms) {
  const timer = setTimeout(() => {
    if (req.complete) return;
    if (!res.headersSent) res.writeHead(408, { connection: "close" }).end();
    req.socket.destroy();
  }, ms);
  const clear = () => clearTimeout(timer);
  req.once("end", clear);
  req.once("close", clear);
  res.once("close", clear);
}

/**
 * Cuts a request whose body stalls: no byte read from its connection for `ms`. Bytes flowing keep
 * it alive however long it takes.
 * @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {number} ms
 */
function boundBodyIdle(req, res, ms) {
  const socket = req.socket;
  let seen = socket.bytesRead;
  let lastByteAt = Date.now();
  const timer = setInterval(() => {
    if (req.complete) return clear();
    if (socket.bytesRead !== seen) {
      seen = socket.bytesRead;
      lastByteAt = Date.now();
      return;
    }
    if (Date.now() - lastByteAt >= ms) {
      clear();
      socket.destroy();
    }
  }, Math.max(10, Math.min(1_000, Math.floor(ms / 4))));
  const clear = () => clearInterval(timer);
  req.once("end", clear);
  req.once("close", clear);
  res.once("close", clear);
}

/** @param {http.IncomingMessage} req */
const hasBody = (req) => req.headers["transfer-encoding"] !== undefined || (req.headers["content-length"] ?? "0") !== "0";

/**
 * Easel's HTTP server: a request that a direct route serves (published by instrumentation once
 * the database is open) is answered from the node:http request itself; every other request, and
 * every request before that, goes to Next.js, whose routes wait for start-up themselves.
 *
 * Every request is handled inside a log context carrying its id (every line logged while serving
 * it has `request_id`), and when its response ends (or its connection closes first) it is logged
 * (one access line: method, route template, status, duration; never the URL, whose query may hold
 * a signature) and, when /metrics is on, counted.
 *
 * Under EASEL_WORKERS (lib/server/cluster), `forwardStorage` hands the embedded store's requests
 * to the worker that owns the store (it answers false on that worker itself), and
 * `metricsSource` renders /metrics for every worker of the deployment rather than this one.
 *
 * @param {(req: http.IncomingMessage, res: http.ServerResponse) => Promise<unknown>} nextHandler
 * Each client address holds at most EASEL_MAX_CONNECTIONS_PER_ADDRESS connections (requests in
 * flight behind EASEL_TRUST_PROXY); past it every request but the health probes is refused at once
 * (lib/server/connections-per-address.mjs).
 *
 * @param {{ headersTimeout?: number, requestTimeout?: number, keepAliveTimeout?: number, uploadIdleTimeout?: number, connectionsCheckingInterval?: number, metricsToken?: string | null,
 *   maxConnectionsPerAddress?: number, trustProxyHops?: number,
 *   forwardStorage?: (req: http.IncomingMessage, res: http.ServerResponse, path: string, id: string) => boolean,
 *   metricsSource?: () => Promise<{ contentType: string, body: string }> }} [overrides]
 *   tests scale the timeouts down and choose the metrics token (else EASEL_METRICS_TOKEN)
 */
export function createEaselServer(nextHandler, overrides = {}) {
  const { keepAliveTimeout, requestTimeout, uploadIdleTimeout, metricsToken, forwardStorage, metricsSource = renderMetrics, maxConnectionsPerAddress, trustProxyHops, ...options } = {
    ...TIMEOUTS,
    uploadIdleTimeout: uploadIdleTimeoutFromEnv(),
    metricsToken: metricsTokenFromEnv(),
    maxConnectionsPerAddress: maxConnectionsPerAddressFromEnv(),
    trustProxyHops: proxyHopsOf(process.env.EASEL_TRUST_PROXY),
    ...overrides,
  };
  const perAddress = connectionsPerAddress({ limit: maxConnectionsPerAddress, proxyHops: trustProxyHops });
  /** @type {any} */ (globalThis)[CLIENT_ADDRESS_HEADER_KEY] = CLIENT_ADDRESS_HEADER;
  // Without a token nothing can read the metrics, so requests are not counted either.
  const tokenDigest = metricsToken ? sha256(metricsToken) : null;
  if (tokenDigest) collectProcessMetrics();
  const routeOf = appRouteMatcher((message) => log().warn(message));
  let stopping = false;

  /**
   * @param {http.IncomingMessage} req @param {http.ServerResponse} res
   * @param {string} id @param {string} route @param {number} started performance.now() at arrival
   */
  const finished = (req, res, id, route, started) => {
    const ms = performance.now() - started;
    // Closed before any answer went out: 499, "client closed request", as proxies log it.
    const status = res.headersSent ? res.statusCode : 499;
    if (tokenDigest) recordRequest(req.method, route, status, ms / 1000);
    const level = PROBES.has(route) ? "debug" : "info";
    const logger = log();
    if (!logger.isLevelEnabled(level)) return;
    /** @type {Record<string, unknown>} */
    const line = { request_id: id, method: req.method, route, status, duration_ms: Math.round(ms * 10) / 10 };
    if (!res.writableFinished) line.aborted = true;
    logger[level](line, "request");
  };

  /** @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {string} id */
  const serve = (req, res, id) => {
    const started = performance.now();
    const path = pathOf(req.url ?? "/");
    const route = routeOf(path);
    res.once("close", () => finished(req, res, id, route, started));
    if (path === "/metrics") return answerMetrics(req, res, tokenDigest, metricsSource);
    if (answerHealth(req, res, path, () => stopping)) return;
    if (!perAddress.admits(req, res)) return answerBusy(res, path);
    delete req.headers[CLIENT_ADDRESS_HEADER];
    if (req.socket.remoteAddress) req.headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress;
    if (hasBody(req)) {
      if (path.startsWith(STORAGE_PREFIX)) boundBodyIdle(req, res, uploadIdleTimeout);
      else boundBodyTotal(req, res, requestTimeout);
    }
    if (forwardStorage && path.startsWith(STORAGE_PREFIX) && forwardStorage(req, res, path, id)) return;
    /** @type {((req: http.IncomingMessage, res: http.ServerResponse) => boolean) | undefined} */
    const direct = /** @type {any} */ (globalThis)[DIRECT_ROUTES];
    if (direct?.(req, res)) return;
    guardHtmlAnswers(res);
    nextHandler(req, res).catch((err) => {
      log().error({ err, method: req.method, route }, "request failed");
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };

  const server = http.createServer({ ...options, requestTimeout: 0 }, (req, res) => {
    const id = requestIdOf(req);
    res.setHeader("x-request-id", id);
    withLogContext({ request_id: id }, () => serve(req, res, id));
  });
  server.keepAliveTimeout = keepAliveTimeout;
  server.on("connection", (socket) => perAddress.accepted(socket));
  // Readiness answers 503 from the moment the server starts to stop, so load balancers drain it.
  server.on("close", () => (stopping = true));
  const close = server.close.bind(server);
  server.close = (callback) => {
    stopping = true;
    return close(callback);
  };
  return server;
}
