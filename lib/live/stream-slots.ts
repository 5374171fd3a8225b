import { DomainError } from "../errors";

/**
 * Open streams a node serves at once: per signed-in user (a browser opens one per tab showing a
 * workspace), and in total. Each holds a connection and a little memory; past the bound a new one
 * is refused with 429 and the page falls back to slow polling until a slot is free.
 */
export const STREAM_LIMITS = { perUser: 12, total: 2_000 } as const;

/** Seconds a refused page waits before it tries to stream again. */
const RETRY_AFTER_S = 30;

type Slots = { total: number; byUser: Map<number, number> };
const slots: Slots = ((globalThis as { __easelLiveSlots?: Slots }).__easelLiveSlots ??= { total: 0, byUser: new Map() });

/** Takes a slot for a stream of `userId`, or throws `rate_limited`; answers how to give it back (once). */
export function takeStreamSlot(userId: number, limits: { perUser: number; total: number } = STREAM_LIMITS): () => void {
  const mine = slots.byUser.get(userId) ?? 0;
  if (mine >= limits.perUser || slots.total >= limits.total) {
    const which = mine >= limits.perUser ? `${limits.perUser} per user` : `${limits.total} per server`;
    throw new DomainError("rate_limited", `Too many live update streams open (at most ${which}); close a tab or retry later`, { retry_after: RETRY_AFTER_S });
  }
  slots.byUser.set(userId, mine + 1);
  slots.total++;
  let given = false;
  return () => {
    if (given) return;
    given = true;
    slots.total--;
    const left = (slots.byUser.get(userId) ?? 1) - 1;
    if (left > 0) slots.byUser.set(userId, left);
    else slots.byUser.delete(userId);
  };
}

/** Streams open on this node (tests check that a disconnect gives its slot back). */
export function openStreamCount(): number {
  return slots.total;
}
