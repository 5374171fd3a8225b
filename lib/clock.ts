/**
 * The one clock of Easel. Domain code never calls `new Date()`: it asks this clock, which the
 * test clock route (EASEL_TEST_CLOCK=1) can move, so revert windows, token expiry and trigger
 * expiry are testable. The offset lives on globalThis because Next.js may load this module more
 * than once in one process (route bundles, instrumentation).
 */
type ClockState = { offsetMs: number };

const state: ClockState = ((globalThis as { __easelClock?: ClockState }).__easelClock ??= { offsetMs: 0 });

export type Clock = () => Date;

export const systemClock: Clock = () => new Date(Date.now() + state.offsetMs);

/** Moves the process clock so that it reads `now` at this instant (time keeps running); null returns to real time. */
export function setClockNow(now: Date | null) {
  state.offsetMs = now ? now.getTime() - Date.now() : 0;
}
