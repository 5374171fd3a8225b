import { useSyncExternalStore } from "react";

/** Relative times ("2 minutes ago") are re-rendered this often while a page is open. */
const TICK_MS = 30_000;

let now = Date.now();
let timer: ReturnType<typeof setInterval> | undefined;
const listeners = new Set<() => void>();

function subscribe(onChange: () => void) {
  listeners.add(onChange);
  if (!timer) {
    // A page opened long after the last one closed: React compares the snapshot after subscribing
    // and renders again with this fresh value.
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const l of listeners) l();
    }, TICK_MS);
  }
  return () => {
    listeners.delete(onChange);
    if (listeners.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/**
 * The current time in the browser, moving every 30 s; null while React renders on the server and
 * hydrates, so nothing rendered then depends on the clock (the server's and the browser's differ).
 */
export function useNow(): number | null {
  return useSyncExternalStore<number | null>(
    subscribe,
    () => now,
    () => null,
  );
}
