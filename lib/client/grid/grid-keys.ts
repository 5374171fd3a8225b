/**
 * Where a key press moves focus in a grid of `count` items laid out `columns` to a row (the
 * asset grid's roving tabindex). Pure, so it is tested without a browser. Returns null for keys
 * the grid does not handle. Moving past the last loaded item clamps to it; the grid loads the
 * next page when focus reaches the end.
 */
export type GridKey = "ArrowLeft" | "ArrowRight" | "ArrowUp" | "ArrowDown" | "Home" | "End" | "PageUp" | "PageDown";

export const GRID_KEYS: readonly string[] = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"];

export function isGridKey(key: string): key is GridKey {
  return GRID_KEYS.includes(key);
}

export function nextGridIndex(key: GridKey, index: number, columns: number, count: number, opts: { ctrl?: boolean; rowsPerPage?: number } = {}): number {
  if (count <= 0) return 0;
  const cols = Math.max(1, Math.floor(columns));
  const last = count - 1;
  const from = Math.min(Math.max(0, index), last);
  const rowStart = from - (from % cols);
  const pageStep = cols * Math.max(1, opts.rowsPerPage ?? 3);
  const clamp = (i: number) => Math.min(Math.max(0, i), last);
  switch (key) {
    case "ArrowLeft":
      return clamp(from - 1);
    case "ArrowRight":
      return clamp(from + 1);
    case "ArrowUp":
      return from - cols >= 0 ? from - cols : from;
    case "ArrowDown":
      // The last row may be short: moving down from above its end lands on its last item.
      return from + cols <= last ? from + cols : rowStart + cols <= last ? last : from;
    case "Home":
      return opts.ctrl ? 0 : rowStart;
    case "End":
      return opts.ctrl ? last : Math.min(rowStart + cols - 1, last);
    case "PageUp":
      return from - pageStep >= 0 ? from - pageStep : from % cols;
    case "PageDown":
      return from + pageStep <= last ? from + pageStep : clamp(last - ((last % cols) - (from % cols) + cols) % cols);
  }
}

/** How many columns of cards of at least `minCardWidth` fit in `width` with `gap` between them. */
export function columnsFor(width: number, minCardWidth: number, gap: number, bounds = { min: 2, max: 8 }): number {
  if (!Number.isFinite(width) || width <= 0) return bounds.min;
  const fit = Math.floor((width + gap) / (minCardWidth + gap));
  return Math.min(bounds.max, Math.max(bounds.min, fit));
}
