import { env } from "../env";
import { forwardedClient, normalizeAddress as normalize } from "./forwarded-address.mjs";

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
  return forwardedClient(req.headers.get("x-forwarded-for"), env().EASEL_TRUST_PROXY) ?? peer ?? UNKNOWN_CLIENT_ADDRESS;
}

function peerAddress(req: Request): string | null {
  const header = (globalThis as { [SERVER_HEADER_KEY]?: string })[SERVER_HEADER_KEY];
  if (!header) return null;
  return normalize(req.headers.get(header) ?? "");
}
