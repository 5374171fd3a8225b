// @ts-check
import http from "node:http";
import { log } from "../../log/logger.mjs";

/**
 * Request headers the forwarder does not pass on: the connection's own (hop-by-hop, RFC 9110
 * §7.6.1: they describe the client's connection, not the request, and no storage signature
 * covers them), and the two the forwarder sets itself from what it knows for certain.
 */
const NOT_FORWARDED = new Set(["connection", "keep-alive", "proxy-connection", "upgrade", "x-request-id"]);

/** Response headers the forwarder leaves to its own connection with the client (it frames the body itself). */
const NOT_RETURNED = new Set(["connection", "keep-alive", "transfer-encoding"]);

/**
 * The raw request headers as the client sent them (names' case and order, repeated headers
 * kept apart), less the connection's own, with the request id and the client's address added.
 * @param {string[]} raw @param {string} clientHeader @param {string} id @param {string | undefined} address
 */
function forwardedHeaders(raw, clientHeader, id, address) {
  /** @type {string[]} */
  const out = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (NOT_FORWARDED.has(name) || name === clientHeader) continue;
    out.push(raw[i], raw[i + 1]);
  }
  out.push("X-Request-Id", id);
  if (address) out.push(clientHeader, address);
  return out;
}

/**
 * The owner's response headers for the member's response, names in their case, a repeated header
 * as a list (each sent as a line of its own: handed over as raw pairs, the response's own headers
 * would keep only the last of them).
 * @param {string[]} raw
 */
function returnedHeaders(raw) {
  /** @type {Record<string, string | string[]>} */
  const out = {};
  /** @type {Map<string, string>} */
  const names = new Map();
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i].toLowerCase();
    if (NOT_RETURNED.has(lower)) continue;
    const name = names.get(lower);
    if (name === undefined) {
      names.set(lower, raw[i]);
      out[raw[i]] = raw[i + 1];
    } else {
      const previous = out[name];
      out[name] = Array.isArray(previous) ? [...previous, raw[i + 1]] : [previous, raw[i + 1]];
    }
  }
  return out;
}

/**
 * The answer when the store's owner cannot be reached (it is restarting, or died mid-request), in
 * the error format of the protocol asked. The connection is closed after it: an upload body may
 * still be arriving, and nothing is left to read it.
 * @param {http.ServerResponse} res @param {string} path
 */
function unavailable(res, path) {
  const message = "The object store is restarting; try again.";
  const gcs = path.startsWith("/storage/gcs");
  const body = gcs
    ? JSON.stringify({ error: { code: 503, message, errors: [{ reason: "backendError", message }] } })
    : `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>ServiceUnavailable</Code><Message>${message}</Message></Error>`;
  res.writeHead(503, { "content-type": gcs ? "application/json; charset=UTF-8" : "application/xml", "retry-after": "1", connection: "close" });
  res.end(body);
}

/**
 * A forwarder of requests to the embedded object store's owner, listening on `socketPath` (a unix
 * socket only this deployment's processes can open). The request goes as it came: method, path
 * and query, raw headers (a signature covers Host and others), and the body streamed with
 * backpressure both ways. The client's address travels in `clientHeader`, which only the owner's
 * private listener believes. A client that goes away aborts the forwarded request (the store
 * then discards a half-received upload as it does for a direct client); an owner that goes away
 * answers 503 if nothing was answered yet, else cuts the client's connection, never a hang.
 *
 * @param {{ socketPath: () => string, clientHeader: string }} opts
 */
export function storageForwarder(opts) {
  // Kept-alive connections to the owner, each closed after 30 s unused: before the private
  // listener's own keep-alive timeout (60 s), so a reused connection is never one it is closing.
  const agent = new http.Agent({ keepAlive: true, timeout: 30_000, maxSockets: Infinity });

  /**
   * @param {http.IncomingMessage} req @param {http.ServerResponse} res @param {string} path
   * @param {string} id the request id (`X-Request-Id`)
   */
  return function forward(req, res, path, id) {
    const upstream = http.request({
      socketPath: opts.socketPath(),
      agent,
      method: req.method,
      path: req.url,
      headers: /** @type {any} */ (forwardedHeaders(req.rawHeaders, opts.clientHeader, id, req.socket.remoteAddress)),
      setHost: false,
    });
    let settled = false;
    // The client went away before its answer was complete: so does the forwarded request.
    res.once("close", () => {
      if (!res.writableFinished) upstream.destroy(new Error("the client closed the connection"));
    });
    upstream.on("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, returnedHeaders(answer.rawHeaders));
      answer.pipe(res);
      answer.once("close", () => {
        // The owner's answer stopped before its end (the owner died): the client must not wait.
        if (!answer.complete && !res.writableFinished) {
          log().warn({ component: "cluster", path, status: answer.statusCode }, "the object store's owner went away mid-answer; the client's connection is closed");
          res.destroy();
        }
      });
      answer.once("error", () => undefined); // its close (above) says all there is to say
    });
    upstream.on("error", (err) => {
      if (settled) return;
      settled = true;
      if (res.destroyed) return; // the client's own going away caused this
      if (!res.headersSent) {
        log().warn({ component: "cluster", path, err }, "the object store's owner could not be reached; answered 503");
        unavailable(res, path);
      } else {
        res.destroy();
      }
      req.unpipe(upstream);
    });
    req.pipe(upstream);
  };
}
