/**
 * In-process wake-up: an event stored by this process (a send, a failed run) wakes the executors
 * of this process at once instead of at their next poll. On globalThis because Next.js loads the
 * serve route and instrumentation (where the executor runs) as separate module graphs.
 */
type SignalState = { listeners: Set<() => void> };
const state: SignalState = ((globalThis as { __easelJobsSignal?: SignalState }).__easelJobsSignal ??= { listeners: new Set() });

export function notifyWork() {
  for (const listener of state.listeners) listener();
}

export function onWork(listener: () => void): () => void {
  state.listeners.add(listener);
  return () => state.listeners.delete(listener);
}
