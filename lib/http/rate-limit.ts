/**
 * Fixed one-minute windows per bucket (API token, board access token, or client address for
 * unauthenticated calls), kept in this process's memory: with several app nodes each node counts
 * on its own (docs/scaling.md).
 */
export type RateState = { limit: number; remaining: number; resetSeconds: number; limited: boolean };

type Window = { startedAt: number; count: number };
const WINDOW_MS = 60_000;
const MAX_BUCKETS = 100_000;

const windows: Map<string, Window> = ((globalThis as { __easelRate?: Map<string, Window> }).__easelRate ??= new Map());

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

export function rateHeaders(state: RateState): Record<string, string> {
  return {
    "RateLimit-Limit": String(state.limit),
    "RateLimit-Remaining": String(state.remaining),
    "RateLimit-Reset": String(state.resetSeconds),
  };
}

/** The bucket of an unauthenticated caller: the one client address the sign-in throttle uses too. */
export { clientAddress } from "./client-address";
