// @ts-check
import net from "node:net";

/**
 * How a client's address is read from a request, shared by the app (lib/http/client-address.ts)
 * and Easel's plain-JS HTTP server (lib/server/http-server.mjs), which bounds connections per
 * address before the app sees a request. One function, so the two never disagree on who a client is.
 */

/**
 * A bare IP address, one spelling per address ("::ffff:10.0.0.1" is 10.0.0.1), or null. Some
 * proxies add the client's port ("10.0.0.1:5123", "[2001:db8::1]:5123"): it is dropped.
 * @param {string} value
 */
export function normalizeAddress(value) {
  let address = value.toLowerCase();
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(address) ?? /^\[([0-9a-f:.]+)\](?::\d+)?$/.exec(address);
  if (withPort) address = withPort[1];
  if (address.startsWith("::ffff:") && net.isIPv4(address.slice(7))) address = address.slice(7);
  return net.isIP(address) ? address : null;
}

/**
 * The client named by `X-Forwarded-For` behind `hops` trusted proxies: each proxy appends the
 * address it received the request from, so the client is the hops-th entry from the right (a
 * shorter chain gives its left-most entry). Null when there is no usable entry.
 * @param {string | null | undefined} header @param {number} hops
 */
export function forwardedClient(header, hops) {
  if (hops <= 0 || !header) return null;
  const chain = header
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (chain.length === 0) return null;
  return normalizeAddress(chain[Math.max(0, chain.length - hops)]);
}

/**
 * EASEL_TRUST_PROXY as a count of proxies: unset, "0", "false" or "no" is none; "true" or "yes"
 * is one; else a whole number. lib/env.ts validates the setting for the app with this same parser.
 * @param {string | undefined} value
 */
export function proxyHopsOf(value) {
  if (value === undefined || value === "" || value === "0" || value === "false" || value === "no") return 0;
  if (value === "true" || value === "yes") return 1;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`EASEL_TRUST_PROXY must be a number of proxies (0, 1, 2, ...), got "${value}"`);
  return n;
}
