/**
 * Rate limits (contract §1, §10): fixed one-minute windows per bucket (API token, board access
 * token, web session, or client address for unauthenticated calls).
 *
 * Where they are counted (docs/scaling.md, "Limits across nodes"):
 * - On PostgreSQL (DATABASE_URL), in the database (rate-limit-store.ts), so that a token's budget
 *   is the sum over every app node: one upsert, one round trip, per request.
 * - On the embedded database (PGlite), in this process's memory: one process owns the data dir,
 *   so its memory already sees every request, and a counter there costs nothing.
 * - When the database cannot count (unreachable, or any error), in this process's memory as well,
 *   for BREAKER_MS: a request is never refused or failed by the limiter alone, and a node keeps
 *   limiting on its own meanwhile (the deployment-wide sum is then at most nodes × limit).
 */
import { isSingleSession, type DbOrTx } from "../db/types";
import { databaseErrorCode } from "../db/unavailable";
import { getDeps } from "../deps";
import { log } from "../log/logger.mjs";
import { clientAddress } from "./client-address";
import { consumeShared, sweepDue, sweepRateWindows, WINDOW_SECONDS } from "./rate-limit-store";

export type RateState = { limit: number; remaining: number; resetSeconds: number; limited: boolean };

type Window = { startedAt: number; count: number };
const WINDOW_MS = WINDOW_SECONDS * 1000; // one window length, in memory and in the table
const MAX_BUCKETS = 100_000;

const windows: Map<string, Window> = ((globalThis as { __easelRate?: Map<string, Window> }).__easelRate ??= new Map());

/** Counts in this process's memory only (the embedded database's counter, and the fallback). */
export function consume(bucket: string, limit: number, nowMs = Date.now()): RateState {
  let w = windows.get(bucket);
  if (!w || nowMs - w.startedAt >= WINDOW_MS) {
    if (windows.size >= MAX_BUCKETS) sweep(nowMs);
    w = { startedAt: nowMs, count: 0 };
    windows.set(bucket, w);
  }
  w.count += 1;
  const resetSeconds = Math.max(0, Math.ceil((w.startedAt + WINDOW_MS - nowMs) / 1000));
  return { limit, remaining: Math.max(0, limit - w.count), resetSeconds, limited: w.count > limit };
}

function sweep(nowMs: number) {
  for (const [key, w] of windows) if (nowMs - w.startedAt >= WINDOW_MS) windows.delete(key);
}

/**
 * After the database failed to count, this node counts in memory for this long before trying the
 * database again: during an outage each request would otherwise wait for its own failed attempt
 * (up to the pool's backoff) just to learn that the counter is down.
 */
const BREAKER_MS = 5_000;

type Fallback = { untilMs: number; since: number; requests: number };
const fallback: Fallback = ((globalThis as { __easelRateFallback?: Fallback }).__easelRateFallback ??= { untilMs: 0, since: 0, requests: 0 });

/**
 * Counts one request of `bucket` where the deployment counts (above): the shared table on
 * PostgreSQL, memory on the embedded database or when there is no database (`db` null: it could
 * not be opened). Never throws.
 */
export async function countRequest(db: DbOrTx | null, bucket: string, limit: number): Promise<RateState> {
  if (!db || isSingleSession(db)) return consume(bucket, limit);
  const nowMs = Date.now();
  if (nowMs < fallback.untilMs) {
    fallback.requests += 1;
    return consume(bucket, limit, nowMs);
  }
  try {
    const state = await consumeShared(db, bucket, limit);
    afterSharedCount(db, nowMs);
    return state;
  } catch (err) {
    const code = databaseErrorCode(err);
    if (!fallback.since) {
      fallback.since = nowMs;
      // A lost database is an outage the rest of the request will meet too; any other error is a bug.
      log()[code ? "warn" : "error"](
        { component: "rate-limit", err, code },
        "the database could not count a request: this node counts rate limits in its own memory until it can (per node, not across nodes)",
      );
    }
    fallback.untilMs = nowMs + BREAKER_MS;
    fallback.requests += 1;
    return consume(bucket, limit, nowMs);
  }
}

/** Whether requests are counted in the shared table now: on PostgreSQL, unless the database failed to count in the last BREAKER_MS. */
export function countsInSharedTable(db: DbOrTx, nowMs = Date.now()): boolean {
  return !isSingleSession(db) && nowMs >= fallback.untilMs;
}

/** After any count in the shared table: says so once if it had been failing, and starts this node's sweep of ended windows when due. */
export function afterSharedCount(db: DbOrTx, nowMs = Date.now()): void {
  if (fallback.since) {
    log().info({ component: "rate-limit", requests_counted_in_memory: fallback.requests, since: new Date(fallback.since).toISOString() }, "rate limits are counted in the database again");
    fallback.since = 0;
    fallback.requests = 0;
  }
  if (sweepDue(nowMs)) {
    sweepRateWindows(db).catch((err) =>
      log().warn({ component: "rate-limit", err, code: databaseErrorCode(err) }, "could not delete ended rate-limit windows; the next sweep (in a minute) deletes them"),
    );
  }
}

/**
 * Counts a request answered before any handler needed the database (a 404, a 405, the OpenAPI
 * document) against its client address, where the deployment counts. When the database cannot be
 * opened, getDeps has already said why; the count then stays in this node's memory.
 */
export async function countClientRequest(req: Request, limit: number): Promise<RateState> {
  const db = await getDeps().then(
    (deps) => deps.db,
    () => null,
  );
  return countRequest(db, `ip:${clientAddress(req)}`, limit);
}

export function rateHeaders(state: RateState): Record<string, string> {
  return {
    "RateLimit-Limit": String(state.limit),
    "RateLimit-Remaining": String(state.remaining),
    "RateLimit-Reset": String(state.resetSeconds),
  };
}

/** The bucket of an unauthenticated caller: the one client address the sign-in throttle uses too. */
export { clientAddress };
