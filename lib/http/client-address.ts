import net from "node:net";
import { env } from "../env";

/**
 * The address of the client that sent a request, for the sign-in throttle and the per-address
 * rate limits. One place decides it, because a header is only as trustworthy as whoever set it:
 *
 * - Easel's own server (`npm start`, lib/server/http-server.mjs) copies the TCP peer's address
 *   into an internal request header, replacing any header of that name a client sent, and
 *   publishes that header's name on a global. Only then is the header read.
 * - `X-Forwarded-For` counts only with `EASEL_TRUST_PROXY=<n>`, the number of reverse proxies in
 *   front of Easel. Each proxy appends the address it received the request from, so the client is
 *   the n-th entry from the right; entries further left were written by the client and prove
 *   nothing. A chain shorter than n (a request that skipped the outer proxies) gives its left-most
 *   entry. A chosen entry that is no IP address means the proxy does not set the header: the peer
 *   address is used instead.
 * - Without Easel's server (`next dev`, `next start`) there is no peer address a client cannot
 *   forge: every request is `unknown`, so per-address limits are shared by all clients (stricter,
 *   never looser). Behind a proxy, EASEL_TRUST_PROXY applies there too; Next.js itself fills an
 *   absent `X-Forwarded-For` with the peer address, so `next dev` with EASEL_TRUST_PROXY=1 sees
 *   real addresses on a developer's machine.
 */
export const UNKNOWN_CLIENT_ADDRESS = "unknown";

/** The global on which Easel's server publishes the name of the header it sets (a plain JS file cannot be imported here). */
const SERVER_HEADER_KEY = Symbol.for("easel.clientAddressHeader");

export function clientAddress(req: Request): string {
  const peer = peerAddress(req);
  const hops = env().EASEL_TRUST_PROXY;
  if (hops > 0) {
    const chain = (req.headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean);
    if (chain.length > 0) {
      const forwarded = normalize(chain[Math.max(0, chain.length - hops)]);
      if (forwarded) return forwarded;
    }
  }
  return peer ?? UNKNOWN_CLIENT_ADDRESS;
}

function peerAddress(req: Request): string | null {
  const header = (globalThis as { [SERVER_HEADER_KEY]?: string })[SERVER_HEADER_KEY];
  if (!header) return null;
  return normalize(req.headers.get(header) ?? "");
}

/**
 * A bare IP address, one spelling per address ("::ffff:10.0.0.1" is 10.0.0.1), or null. Some
 * proxies add the client's port ("10.0.0.1:5123", "[2001:db8::1]:5123"): it is dropped.
 */
function normalize(value: string): string | null {
  let address = value.toLowerCase();
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(address) ?? /^\[([0-9a-f:.]+)\](?::\d+)?$/.exec(address);
  if (withPort) address = withPort[1];
  if (address.startsWith("::ffff:") && net.isIPv4(address.slice(7))) address = address.slice(7);
  return net.isIP(address) ? address : null;
}
