import { describe, expect, it } from "vitest";
import { treeKeyAction } from "./tree-keys";

describe("treeKeyAction", () => {
  const at = (index: number, expanded = false) => ({ index, count: 5, expanded });

  it("moves up and down the visible items, stopping at the ends", () => {
    expect(treeKeyAction("ArrowDown", at(1))).toEqual({ kind: "focus", index: 2 });
    expect(treeKeyAction("ArrowDown", at(4))).toEqual({ kind: "focus", index: 4 });
    expect(treeKeyAction("ArrowUp", at(0))).toEqual({ kind: "focus", index: 0 });
    expect(treeKeyAction("Home", at(3))).toEqual({ kind: "focus", index: 0 });
    expect(treeKeyAction("End", at(1))).toEqual({ kind: "focus", index: 4 });
  });

  it("Right opens a closed item and enters an open one; Left closes an open one and leaves a closed one", () => {
    expect(treeKeyAction("ArrowRight", at(2))).toEqual({ kind: "expand" });
    expect(treeKeyAction("ArrowRight", at(2, true))).toEqual({ kind: "first-child" });
    expect(treeKeyAction("ArrowLeft", at(2, true))).toEqual({ kind: "collapse" });
    expect(treeKeyAction("ArrowLeft", at(2))).toEqual({ kind: "parent" });
  });

  it("Enter activates; a printable character starts type-ahead; other keys are left alone", () => {
    expect(treeKeyAction("Enter", at(0))).toEqual({ kind: "activate" });
    expect(treeKeyAction("B", at(0))).toEqual({ kind: "type-ahead", char: "b" });
    expect(treeKeyAction(" ", at(0))).toBeNull();
    expect(treeKeyAction("Tab", at(0))).toBeNull();
  });
});
