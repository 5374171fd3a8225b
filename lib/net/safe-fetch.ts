import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import tls from "node:tls";
import { bareHost, checkUrl, resolveTarget, UrlGuardError, type PinnedTarget, type UrlPolicy } from "./url-guard";

export type SafeFetchOptions = UrlPolicy & {
  method?: "GET" | "POST" | "HEAD";
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Redirects followed, each hop checked like the first. 0 returns a 3xx as it is. Default 5. */
  maxRedirects?: number;
  /** Largest response body accepted, in bytes, counted as it arrives. Default 1 MiB. */
  maxBytes?: number;
  /** Deadline of the whole exchange (resolution, every hop, the body). Default 30 s. */
  timeoutMs?: number;
  /** Certificates trusted in addition to Node's roots (a private CA; the tests' self-signed server). */
  ca?: string | Buffer | (string | Buffer)[];
};

export type SafeResponse = { status: number; headers: Headers; body: Buffer; url: string; address: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DEFAULT_MAX_BYTES = 1024 * 1024;

/**
 * An outbound HTTP(S) request to a URL a client chose: guarded by url-guard at every hop, connected
 * to the address the guard checked (never resolved a second time), redirects followed by hand,
 * the body refused once it passes `maxBytes` (whatever Content-Length claims), and one deadline.
 * Throws UrlGuardError; any HTTP status is returned, the caller decides what it means.
 */
export async function safeFetch(input: string | URL, options: SafeFetchOptions = {}): Promise<SafeResponse> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  const maxRedirects = options.maxRedirects ?? 5;
  let url = checkUrl(input, options);
  let method = options.method ?? "GET";
  let body = options.body;
  let headers = { ...(options.headers ?? {}) };
  for (let hop = 0; ; hop++) {
    const target = await beforeDeadline(resolveTarget(url, options), deadline);
    const res = await exchange(target, { ...options, method, headers, body }, deadline, maxRedirects > 0);
    const location = res.headers.get("location");
    if (!REDIRECTS.has(res.status) || !location || maxRedirects === 0) return res;
    if (hop >= maxRedirects) throw new UrlGuardError("too_many_redirects", `More than ${maxRedirects} redirects`);
    const next = checkUrl(new URL(location, url), options);
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
    }
    // Credentials meant for one origin are not handed to the next.
    if (next.origin !== url.origin) headers = Object.fromEntries(Object.entries(headers).filter(([k]) => !/^(authorization|cookie)$/i.test(k)));
    url = next;
  }
}

function remaining(deadline: number): number {
  return Math.max(0, deadline - Date.now());
}

async function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UrlGuardError("timeout", "The request timed out")), remaining(deadline));
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The connection's name lookup answers with the guarded address only. */
function pinnedLookup(target: PinnedTarget): LookupFunction {
  return (_hostname, opts, callback) => {
    const cb = callback as (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void;
    if (opts && typeof opts === "object" && opts.all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
}

function trustedRoots(ca: SafeFetchOptions["ca"]): (string | Buffer)[] | undefined {
  if (ca === undefined) return undefined;
  return [...tls.rootCertificates, ...(Array.isArray(ca) ? ca : [ca])];
}

function toHeaders(raw: string[]): Headers {
  const h = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      h.append(raw[i], raw[i + 1]);
    } catch {
      // A header value fetch's Headers refuses is not one we need.
    }
  }
  return h;
}

/** One request to the pinned address. With `follow`, a redirect settles at its headers: its body is never read. */
function exchange(target: PinnedTarget, o: SafeFetchOptions & { method: string }, deadline: number, follow: boolean): Promise<SafeResponse> {
  const { url } = target;
  const maxBytes = o.maxBytes ?? DEFAULT_MAX_BYTES;
  return new Promise<SafeResponse>((resolve, reject) => {
    let settled = false;
    const fail = (err: UrlGuardError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(err);
    };
    const client = url.protocol === "https:" ? https : http;
    const req = client.request({
      protocol: url.protocol,
      hostname: bareHost(url.hostname),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: o.method,
      // The response is stored byte for byte, so no content coding is asked for (nor decoded).
      headers: { "accept-encoding": "identity", ...o.headers, host: url.host },
      lookup: pinnedLookup(target),
      // No pooled sockets: every connection is made to an address checked for this request.
      agent: false,
      ca: trustedRoots(o.ca),
    });
    const timer = setTimeout(() => fail(new UrlGuardError("timeout", "The request timed out")), remaining(deadline));
    req.on("error", (err: NodeJS.ErrnoException) => fail(new UrlGuardError("network", `Could not fetch ${url.origin}: ${err.code ?? err.message}`)));
    req.on("response", (res) => {
      const headers = toHeaders(res.rawHeaders);
      const status = res.statusCode ?? 0;
      if (follow && REDIRECTS.has(status) && headers.has("location")) {
        settled = true;
        clearTimeout(timer);
        res.destroy();
        return resolve({ status, headers, body: Buffer.alloc(0), url: url.href, address: target.address });
      }
      const declared = Number(headers.get("content-length") ?? NaN);
      if (Number.isFinite(declared) && declared > maxBytes) return fail(tooLarge(maxBytes));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return fail(tooLarge(maxBytes));
        chunks.push(chunk);
      });
      res.on("close", () => {
        if (!res.complete) fail(new UrlGuardError("network", `The connection to ${url.origin} closed before the body ended`));
      });
      res.on("error", (err: NodeJS.ErrnoException) => fail(new UrlGuardError("network", `Could not read from ${url.origin}: ${err.code ?? err.message}`)));
      res.on("end", () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ status, headers, body: Buffer.concat(chunks), url: url.href, address: target.address });
      });
    });
    req.end(o.body);
  });
}

const tooLarge = (maxBytes: number) => new UrlGuardError("too_large", `The response body is larger than ${maxBytes} bytes`);
