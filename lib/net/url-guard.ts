import dns from "node:dns";
import { nonPublicRange, parseIp, sameIp, type Ip } from "./ip";

/**
 * The SSRF guard of every request Easel makes to a URL a client chose (assistant ingest URLs,
 * webhook receivers). A URL passes when its scheme is allowed, it carries no credentials, and its
 * host, literal or resolved, is a public address. Callers connect to the address this returns
 * (see safe-fetch.ts): checking a name and then letting the connection resolve it again would let
 * DNS answer differently the second time (rebinding).
 *
 * What this does not cover: a public server that proxies requests inward; that is the operator's
 * network to police.
 */
export type UrlGuardReason =
  | "invalid_url"
  | "scheme"
  | "credentials"
  | "private_address"
  | "dns"
  | "too_many_redirects"
  | "too_large"
  | "timeout"
  | "network";

export class UrlGuardError extends Error {
  constructor(
    readonly reason: UrlGuardReason,
    message: string,
  ) {
    super(message);
    this.name = "UrlGuardError";
  }
}

export type ResolvedAddress = { address: string; family: 4 | 6 };
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export type UrlPolicy = {
  /** Allowed schemes, with the colon. Default `["https:"]`. */
  protocols?: readonly string[];
  /** Lift the address rules (EASEL_WEBHOOK_ALLOW_PRIVATE: tests and local development). Scheme rules still apply. */
  allowPrivate?: boolean;
  /** Exact addresses allowed although not public, e.g. one known internal service. */
  trustedAddresses?: readonly string[];
  /** Name resolution; default the system resolver (the one a plain connection would use). */
  resolve?: Resolver;
};

/** A URL that passed, and the one address to connect to for it. */
export type PinnedTarget = { url: URL; address: string; family: 4 | 6 };

export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** `[::1]` → `::1`: URL keeps IPv6 hosts bracketed, sockets and resolvers want them bare. */
export const bareHost = (hostname: string) => (hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname);

function isTrusted(ip: Ip, policy: UrlPolicy): boolean {
  return (policy.trustedAddresses ?? []).some((t) => {
    const parsed = parseIp(t);
    return parsed !== null && sameIp(parsed, ip);
  });
}

/** Throws unless `address` may be connected to under `policy`. */
export function assertAddressAllowed(address: string, policy: UrlPolicy = {}, host = address): void {
  if (policy.allowPrivate) return;
  const ip = parseIp(address);
  if (!ip) throw new UrlGuardError("private_address", `${host} does not resolve to an IP address`);
  if (isTrusted(ip, policy)) return;
  const range = nonPublicRange(ip);
  if (range) {
    const via = host === address ? "" : ` (resolves to ${address})`;
    throw new UrlGuardError("private_address", `${host}${via} is not a public address: ${range}`);
  }
}

/**
 * The checks that need no network: parses, and refuses a scheme outside the policy, user
 * credentials in the URL, `localhost` names, and literal non-public addresses in any spelling.
 */
export function checkUrl(input: string | URL, policy: UrlPolicy = {}): URL {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw new UrlGuardError("invalid_url", "Not a valid absolute URL");
  }
  const protocols = policy.protocols ?? ["https:"];
  if (!protocols.includes(url.protocol)) {
    throw new UrlGuardError("scheme", `The URL scheme must be ${protocols.map((p) => p.replace(":", "")).join(" or ")}, not ${url.protocol.replace(":", "")}`);
  }
  if (url.username || url.password) throw new UrlGuardError("credentials", "The URL must not carry a user name or password");
  const host = bareHost(url.hostname);
  if (!host) throw new UrlGuardError("invalid_url", "The URL has no host");
  if (!policy.allowPrivate && /(^|\.)localhost\.?$/i.test(host)) {
    throw new UrlGuardError("private_address", `${host} is not a public address: loopback`);
  }
  // WHATWG URL already rewrites decimal, octal and hex IPv4 spellings to dotted form; parseIp
  // reads them all anyway, so the check does not depend on where the string came from.
  if (parseIp(host)) assertAddressAllowed(host, policy);
  return url;
}

/** Resolves the URL's host and checks every address it has; returns the one to connect to. */
export async function resolveTarget(url: URL, policy: UrlPolicy = {}): Promise<PinnedTarget> {
  const host = bareHost(url.hostname);
  const literal = parseIp(host);
  if (literal) {
    assertAddressAllowed(host, policy);
    return { url, address: host, family: literal.family };
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await (policy.resolve ?? systemResolver)(host);
  } catch {
    throw new UrlGuardError("dns", `Could not resolve ${host}`);
  }
  if (!addresses.length) throw new UrlGuardError("dns", `${host} has no addresses`);
  // Every address, not just the first: a name answering with one public and one private address
  // is either misconfigured or aiming the connection inward.
  for (const a of addresses) assertAddressAllowed(a.address, policy, host);
  return { url, address: addresses[0].address, family: addresses[0].family };
}

/** checkUrl and resolveTarget in one: the URL is allowed and this is where to connect. */
export async function guardUrl(input: string | URL, policy: UrlPolicy = {}): Promise<PinnedTarget> {
  return resolveTarget(checkUrl(input, policy), policy);
}
