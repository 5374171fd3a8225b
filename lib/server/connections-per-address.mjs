// @ts-check
import { forwardedClient, normalizeAddress } from "../http/forwarded-address.mjs";

/** EASEL_MAX_CONNECTIONS_PER_ADDRESS, or its default; a value that is no positive integer stops the start. */
export function maxConnectionsPerAddressFromEnv(value = process.env.EASEL_MAX_CONNECTIONS_PER_ADDRESS) {
  if (value === undefined || value === "") return 256;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`EASEL_MAX_CONNECTIONS_PER_ADDRESS must be a positive integer, got "${value}"`);
  return n;
}

/** Marks a socket accepted while its address already held the most connections it may. */
const OVER_BOUND = Symbol("easel.overConnectionBound");

/**
 * Open connections per client address (contract §13), so one client cannot hold every socket and
 * file descriptor of the process.
 *
 * Without a trusted proxy the client is the TCP peer: a connection is counted when accepted and
 * given back when it closes (a socket closes once). One accepted past the bound is marked; every
 * request on it, except the health probes, is refused at once (lib/server/busy-answers.mjs) and
 * the connection closed.
 *
 * Behind `EASEL_TRUST_PROXY` proxies the peer is a proxy that carries many clients on few
 * connections, so what is counted is each client's requests in flight (named by
 * X-Forwarded-For), given back when the response closes.
 *
 * @param {{ limit: number, proxyHops: number }} options
 */
export function connectionsPerAddress({ limit, proxyHops }) {
  /** @type {Map<string, number>} */
  const counts = new Map();
  /** @param {string} key */
  const take = (key) => {
    const now = (counts.get(key) ?? 0) + 1;
    counts.set(key, now);
    return now;
  };
  /** @param {string} key */
  const give = (key) => {
    const left = (counts.get(key) ?? 0) - 1;
    if (left <= 0) counts.delete(key);
    else counts.set(key, left);
  };

  return {
    /** @param {import("node:net").Socket} socket */
    accepted(socket) {
      if (proxyHops > 0) return;
      const key = normalizeAddress(socket.remoteAddress ?? "") ?? "unknown";
      if (take(key) > limit) /** @type {any} */ (socket)[OVER_BOUND] = true;
      socket.once("close", () => give(key));
    },
    /**
     * Whether this request may be served; when it may and is counted, its count is given back
     * once, when its response closes.
     * @param {import("node:http").IncomingMessage} req @param {import("node:http").ServerResponse} res
     */
    admits(req, res) {
      if (proxyHops === 0) return !(/** @type {any} */ (req.socket)[OVER_BOUND]);
      const forwarded = req.headers["x-forwarded-for"];
      const key = forwardedClient(Array.isArray(forwarded) ? forwarded.join(",") : forwarded, proxyHops) ?? normalizeAddress(req.socket.remoteAddress ?? "") ?? "unknown";
      if (take(key) > limit) {
        give(key);
        return false;
      }
      res.once("close", () => give(key));
      return true;
    },
    /** Connections (or requests, behind proxies) counted for an address now. */
    count: (/** @type {string} */ address) => counts.get(address) ?? 0,
  };
}
