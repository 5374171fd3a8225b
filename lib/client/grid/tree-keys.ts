/**
 * What a key does on a focused item of a WAI-ARIA tree (the board tree). Pure: the component
 * finds the items in the DOM and carries the action out. `index` is the item's place among the
 * visible items, `count` how many are visible.
 */
export type TreeAction =
  | { kind: "focus"; index: number }
  | { kind: "expand" }
  | { kind: "collapse" }
  | { kind: "first-child" }
  | { kind: "parent" }
  | { kind: "activate" }
  | { kind: "type-ahead"; char: string };

export function treeKeyAction(key: string, item: { index: number; count: number; expanded: boolean }): TreeAction | null {
  const last = item.count - 1;
  switch (key) {
    case "ArrowDown":
      return { kind: "focus", index: Math.min(item.index + 1, last) };
    case "ArrowUp":
      return { kind: "focus", index: Math.max(item.index - 1, 0) };
    case "Home":
      return { kind: "focus", index: 0 };
    case "End":
      return { kind: "focus", index: last };
    case "ArrowRight":
      return item.expanded ? { kind: "first-child" } : { kind: "expand" };
    case "ArrowLeft":
      return item.expanded ? { kind: "collapse" } : { kind: "parent" };
    case "Enter":
      return { kind: "activate" };
    default:
      return key.length === 1 && /\S/.test(key) ? { kind: "type-ahead", char: key.toLowerCase() } : null;
  }
}
