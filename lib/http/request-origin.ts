import { env } from "../env";

/**
 * The origin a client used to reach this server, read from the request alone (no EASEL_PUBLIC_URL):
 * what links handed back to that client are built on, and what a same-origin check compares with.
 *
 * `X-Forwarded-Host` and `X-Forwarded-Proto` are believed only with EASEL_TRUST_PROXY: without a
 * proxy that sets them, any client writes them, and a request carrying `Origin: https://evil.example`
 * with `X-Forwarded-Host: evil.example` would pass the CSRF check and get invitation links, upload
 * URLs and media links on the attacker's host. Behind EASEL_TRUST_PROXY=<n> proxies the entry is
 * read as X-Forwarded-For is (lib/http/forwarded-address.mjs): the n-th from the right, the one the
 * outermost trusted proxy wrote.
 */
export function requestOrigin(req: Request, proxyHops: number = env().EASEL_TRUST_PROXY): string {
  const url = new URL(req.url);
  const ownHost = validHost(req.headers.get("host")) ?? url.host;
  const ownProto = url.protocol.replace(/:$/, "");
  if (proxyHops <= 0) return `${ownProto}://${ownHost}`;
  const host = validHost(forwardedEntry(req.headers.get("x-forwarded-host"), proxyHops)) ?? ownHost;
  const forwardedProto = forwardedEntry(req.headers.get("x-forwarded-proto"), proxyHops)?.toLowerCase();
  const proto = forwardedProto === "http" || forwardedProto === "https" ? forwardedProto : ownProto;
  return `${proto}://${host}`;
}

/** Whether the client reached this server over https (directly, or through a trusted TLS proxy). */
export function reachedOverHttps(req: { url: string; headers: Headers }, proxyHops: number = env().EASEL_TRUST_PROXY): boolean {
  return requestOrigin(new Request(req.url, { headers: req.headers }), proxyHops).startsWith("https:");
}

/** The entry a trusted proxy wrote in a comma-separated forwarded header (each proxy may append one). */
function forwardedEntry(header: string | null, hops: number): string | undefined {
  const chain = (header ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  return chain.length ? chain[Math.max(0, chain.length - hops)] : undefined;
}

/**
 * A host and optional port, nothing else: a value with a path, credentials, spaces or other
 * characters is ignored rather than pasted into links.
 */
function validHost(value: string | null | undefined): string | null {
  if (!value) return null;
  return /^(?:[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i.test(value) ? value : null;
}

/**
 * The warning a production server logs at start when it can only guess its own origin: without
 * EASEL_PUBLIC_URL links are built on the request's Host, and without EASEL_TRUST_PROXY a TLS
 * proxy's X-Forwarded-Proto is not believed either (links say http, and a page's same-origin
 * check may refuse its own https origin). Null when either is set, or outside production.
 */
export function originSettingsWarning(e: { EASEL_PUBLIC_URL?: string; EASEL_TRUST_PROXY: number }, nodeEnv = process.env.NODE_ENV): string | null {
  if (nodeEnv !== "production" || e.EASEL_PUBLIC_URL || e.EASEL_TRUST_PROXY > 0) return null;
  return "neither EASEL_PUBLIC_URL nor EASEL_TRUST_PROXY is set: links are built on each request's Host header and X-Forwarded-Host/-Proto are ignored; set EASEL_PUBLIC_URL to the origin clients use (docs/configuration.md)";
}
