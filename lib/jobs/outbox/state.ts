import { log } from "../../log/logger.mjs";

/**
 * What one process knows about handing events on, shared by the writes' immediate hand-offs and
 * the relay loop. On globalThis because Next.js loads route bundles and instrumentation (where the
 * relay runs) as separate module graphs in one process.
 *
 * After a failed hand-off the process pauses: writes stop trying inline (their events wait in the
 * outbox, and a write does not wait on an unreachable job system) and the relay tries again when
 * the pause ends, waiting longer after each failure in a row.
 */
type OutboxState = {
  pausedUntil: number;
  failuresInARow: number;
  retryDelayMs: (failuresInARow: number) => number;
  listeners: Set<() => void>;
};

/** 0.5 s, 1 s, 2 s … at most 30 s, ±20 % so that nodes retrying together spread out. */
export function defaultRetryDelayMs(failuresInARow: number): number {
  const base = Math.min(500 * 2 ** Math.max(0, failuresInARow - 1), 30_000);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

const state: OutboxState = ((globalThis as { __easelOutbox?: OutboxState }).__easelOutbox ??= {
  pausedUntil: 0,
  failuresInARow: 0,
  retryDelayMs: defaultRetryDelayMs,
  listeners: new Set(),
});

/** Milliseconds until hand-offs may be tried again (0: now). */
export function pausedForMs(now = Date.now()): number {
  return Math.max(0, state.pausedUntil - now);
}

/**
 * A hand-off failed: answers the delay before the next try, and pauses this process until then.
 * Logged at the first failure of an outage and every tenth after it: one line per try would
 * flood the log while the job system is down.
 */
export function recordFailure(reason: string): number {
  state.failuresInARow++;
  const delay = state.retryDelayMs(state.failuresInARow);
  state.pausedUntil = Date.now() + delay;
  if (state.failuresInARow === 1 || state.failuresInARow % 10 === 0) {
    log().warn({ component: "outbox", failures_in_a_row: state.failuresInARow, retry_in_ms: delay, reason }, "events could not be handed on; kept, tried again");
  }
  wakeRelay();
  return delay;
}

/** The delay a row that failed `attempts` times waits before its next try. */
export function rowRetryDelayMs(attempts: number): number {
  return state.retryDelayMs(attempts);
}

/** Events went through: the pause ends, and the end of an outage is logged. */
export function recordSuccess() {
  if (state.failuresInARow > 0) log().info({ component: "outbox", failed_tries: state.failuresInARow }, "handing events on again");
  state.failuresInARow = 0;
  state.pausedUntil = 0;
}

/** Sets the backoff (the relay's option; tests make it short). */
export function setRetryDelay(fn: (failuresInARow: number) => number) {
  state.retryDelayMs = fn;
}

/** Wakes this process's relay loop: there is work, or its pause changed. */
export function wakeRelay() {
  for (const listener of state.listeners) listener();
}

export function onRelayWake(listener: () => void): () => void {
  state.listeners.add(listener);
  return () => state.listeners.delete(listener);
}
