import { describe, expect, it } from "vitest";
import { emptySelection, extendTo, isSelected, onlyThese, resolveSelection, selectAll, selectedCount, toggle } from "./selection";

const order = ["a", "b", "c", "d", "e", "f"];

describe("selection", () => {
  it("toggles single cards and counts them", () => {
    let sel = toggle(emptySelection(), "b");
    sel = toggle(sel, "d");
    expect(resolveSelection(sel, order)).toEqual(["b", "d"]);
    sel = toggle(sel, "b");
    expect(resolveSelection(sel, order)).toEqual(["d"]);
    expect(selectedCount(sel, 6)).toBe(1);
  });

  it("shift-click selects the range from the anchor, in either direction", () => {
    const down = extendTo(toggle(emptySelection(), "b"), "e", order);
    expect(resolveSelection(down, order)).toEqual(["b", "c", "d", "e"]);
    const up = extendTo(toggle(emptySelection(), "e"), "b", order);
    expect(resolveSelection(up, order)).toEqual(["b", "c", "d", "e"]);
  });

  it("a range takes the anchor's state, so it can clear a run of cards", () => {
    let sel = extendTo(toggle(emptySelection(), "a"), "f", order);
    sel = toggle(sel, "c"); // c is now unselected and the anchor
    sel = extendTo(sel, "e", order);
    expect(resolveSelection(sel, order)).toEqual(["a", "b", "f"]);
  });

  it("shift-click without an anchor acts as a toggle", () => {
    expect(resolveSelection(extendTo(emptySelection(), "c", order), order)).toEqual(["c"]);
  });

  it("select all covers tokens that are not loaded, minus the ones taken out", () => {
    let sel = toggle(selectAll(), "b");
    expect(isSelected(sel, "zzz-not-loaded")).toBe(true);
    expect(isSelected(sel, "b")).toBe(false);
    expect(selectedCount(sel, 5000)).toBe(4999);
    const everyToken = [...order, "g", "h"];
    expect(resolveSelection(sel, everyToken)).toEqual(["a", "c", "d", "e", "f", "g", "h"]);
    sel = toggle(sel, "b");
    expect(resolveSelection(sel, everyToken)).toHaveLength(8);
  });

  it("keeps only the failed items after a run", () => {
    expect(resolveSelection(onlyThese(["c"]), order)).toEqual(["c"]);
  });
});
