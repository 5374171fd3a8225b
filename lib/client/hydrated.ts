import { useSyncExternalStore } from "react";

const neverChanges = () => () => {};

/**
 * False while React renders on the server and hydrates the HTML, true from the render after.
 * A form that the server renders with its data (the asset page's details) is shown before its
 * handlers are attached: what a person types there before hydration is not in React's state, and
 * the next render puts the old value back. Such a form stays disabled until this is true.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    neverChanges,
    () => true,
    () => false,
  );
}
