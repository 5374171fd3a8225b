import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { bareHost, UrlGuardError, type PinnedTarget } from "../net/url-guard";

/** What a receiver answered: the status, where a redirect pointed (never followed), and the body. */
export type PostAnswer = { status: number; location: string | null; body: Buffer };

export type PostOptions = { headers: Record<string, string>; body: string; timeoutMs: number };

/** Requests in flight to one origin at one checked address, across every batch of this process. */
export const SOCKETS_PER_ORIGIN = 16;
/** An answer body larger than this fails the attempt (docs/webhooks.md: "over 1 MiB counts as a failure"). */
const MAX_ANSWER_BYTES = 1024 * 1024;
/** An idle pooled connection is closed after this; receivers' servers often close sooner (Node's default is 5 s). */
const IDLE_MS = 4_000;
/** Pools kept; the least recently used idle one is closed beyond this. */
const MAX_POOLS = 256;

type Pool = { agent: http.Agent; inFlight: number; waiting: (() => void)[] };

/**
 * Keep-alive connection pools, one per origin **and checked address**: a pooled connection was
 * opened to the address url-guard checked for the request that opened it, and is only reused by
 * requests whose own check answered the same address. A name that now resolves elsewhere gets a
 * pool (and connections) of its own; the old one idles out. Map order is recency of use.
 */
const pools = new Map<string, Pool>();

function poolFor(target: PinnedTarget): Pool {
  const key = `${target.url.protocol}//${target.url.host}@${target.address}`;
  let pool = pools.get(key);
  if (pool) {
    pools.delete(key);
  } else {
    const Agent = target.url.protocol === "https:" ? https.Agent : http.Agent;
    pool = { agent: new Agent({ keepAlive: true, timeout: IDLE_MS, scheduling: "lifo" }), inFlight: 0, waiting: [] };
  }
  pools.set(key, pool);
  if (pools.size > MAX_POOLS) {
    for (const [oldKey, old] of pools) {
      if (pools.size <= MAX_POOLS) break;
      if (old.inFlight > 0 || old.waiting.length > 0) continue;
      old.agent.destroy();
      pools.delete(oldKey);
    }
  }
  return pool;
}

async function acquire(pool: Pool): Promise<void> {
  if (pool.inFlight < SOCKETS_PER_ORIGIN) {
    pool.inFlight++;
    return;
  }
  // The slot is handed over by release(), so inFlight stays counted.
  await new Promise<void>((resolve) => pool.waiting.push(resolve));
}

function release(pool: Pool): void {
  const next = pool.waiting.shift();
  if (next) next();
  else pool.inFlight--;
}

/** The connection's name lookup answers with the checked address only. */
function pinnedLookup(target: PinnedTarget): LookupFunction {
  return (_hostname, opts, callback) => {
    const cb = callback as (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void;
    if (opts && typeof opts === "object" && opts.all) cb(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
}

/** A reused idle connection the receiver had closed: nothing of the request was answered, so it is sent again on a new one. */
class StaleConnection extends Error {}

/**
 * POSTs to a URL already checked by url-guard, on a keep-alive connection to the checked address
 * (see `pools`), at most SOCKETS_PER_ORIGIN at a time per origin. Redirects are returned, never
 * followed. The deadline covers the exchange from the moment this request has its turn, headers
 * and body; a body over 1 MiB fails. Throws UrlGuardError (`timeout`, `network`, `too_large`).
 */
export async function pooledPost(target: PinnedTarget, options: PostOptions): Promise<PostAnswer> {
  const pool = poolFor(target);
  await acquire(pool);
  try {
    try {
      return await exchange(target, pool.agent, options);
    } catch (err) {
      if (!(err instanceof StaleConnection)) throw err;
      // A fresh connection, outside the pool: the pool may hold more connections the receiver closed.
      return await exchange(target, false, options);
    }
  } finally {
    release(pool);
  }
}

function exchange(target: PinnedTarget, agent: http.Agent | false, o: PostOptions): Promise<PostAnswer> {
  const { url } = target;
  return new Promise<PostAnswer>((resolve, reject) => {
    let settled = false;
    let answered = false;
    const fail = (err: Error) => {
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
      method: "POST",
      // The answer is kept byte for byte (its excerpt goes to the log), so no content coding is asked for.
      headers: { "accept-encoding": "identity", ...o.headers, host: url.host, "content-length": String(Buffer.byteLength(o.body)) },
      lookup: pinnedLookup(target),
      agent,
    });
    const timer = setTimeout(() => fail(new UrlGuardError("timeout", "The request timed out")), o.timeoutMs);
    req.on("error", (err: NodeJS.ErrnoException) => {
      if (req.reusedSocket && !answered && ["ECONNRESET", "EPIPE", "ECONNABORTED"].includes(err.code ?? "")) return fail(new StaleConnection());
      fail(new UrlGuardError("network", `Could not fetch ${url.origin}: ${err.code ?? err.message}`));
    });
    req.on("response", (res) => {
      answered = true;
      const status = res.statusCode ?? 0;
      const declared = Number(res.headers["content-length"] ?? NaN);
      if (Number.isFinite(declared) && declared > MAX_ANSWER_BYTES) return fail(tooLarge());
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) return fail(tooLarge());
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
        const location = res.headers.location;
        resolve({ status, location: typeof location === "string" ? location : null, body: Buffer.concat(chunks) });
      });
    });
    req.end(o.body);
  });
}

const tooLarge = () => new UrlGuardError("too_large", `The response body is larger than ${MAX_ANSWER_BYTES} bytes`);
