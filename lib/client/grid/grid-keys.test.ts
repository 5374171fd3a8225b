import { describe, expect, it } from "vitest";
import { columnsFor, isGridKey, nextGridIndex } from "./grid-keys";

// 14 items, 5 to a row:  0  1  2  3  4 /  5  6  7  8  9 / 10 11 12 13
describe("nextGridIndex", () => {
  const move = (key: Parameters<typeof nextGridIndex>[0], from: number, opts = {}) => nextGridIndex(key, from, 5, 14, opts);

  it("moves along a row and wraps across rows in reading order", () => {
    expect(move("ArrowRight", 3)).toBe(4);
    expect(move("ArrowRight", 4)).toBe(5);
    expect(move("ArrowLeft", 5)).toBe(4);
    expect(move("ArrowLeft", 0)).toBe(0);
    expect(move("ArrowRight", 13)).toBe(13);
  });

  it("moves by a whole row up and down, staying put at the edges", () => {
    expect(move("ArrowDown", 2)).toBe(7);
    expect(move("ArrowUp", 7)).toBe(2);
    expect(move("ArrowUp", 3)).toBe(3);
    expect(move("ArrowDown", 12)).toBe(12);
  });

  it("lands on the last item when the row below is shorter", () => {
    expect(move("ArrowDown", 9)).toBe(13);
    expect(move("ArrowDown", 8)).toBe(13);
    expect(move("ArrowDown", 7)).toBe(12);
  });

  it("Home and End go to the row's ends; with ctrl to the list's", () => {
    expect(move("Home", 8)).toBe(5);
    expect(move("End", 6)).toBe(9);
    expect(move("End", 11)).toBe(13);
    expect(move("Home", 8, { ctrl: true })).toBe(0);
    expect(move("End", 2, { ctrl: true })).toBe(13);
  });

  it("pages by rows, keeping the column", () => {
    expect(nextGridIndex("PageDown", 1, 5, 100, { rowsPerPage: 4 })).toBe(21);
    expect(nextGridIndex("PageUp", 21, 5, 100, { rowsPerPage: 4 })).toBe(1);
    expect(nextGridIndex("PageUp", 12, 5, 100, { rowsPerPage: 4 })).toBe(2);
    expect(nextGridIndex("PageDown", 92, 5, 100, { rowsPerPage: 4 })).toBe(97);
  });

  it("copes with an empty list, a stale index and one column", () => {
    expect(nextGridIndex("ArrowDown", 0, 5, 0)).toBe(0);
    expect(nextGridIndex("ArrowLeft", 40, 5, 14)).toBe(12);
    expect(nextGridIndex("ArrowDown", 3, 1, 14)).toBe(4);
  });

  it("recognises only the keys it handles", () => {
    expect(isGridKey("ArrowUp")).toBe(true);
    expect(isGridKey("Enter")).toBe(false);
  });
});

describe("columnsFor", () => {
  it("fits as many minimum-width cards as the width allows, within bounds", () => {
    expect(columnsFor(1000, 180, 12)).toBe(5);
    expect(columnsFor(300, 180, 12)).toBe(2);
    expect(columnsFor(5000, 180, 12)).toBe(8);
    expect(columnsFor(0, 180, 12)).toBe(2);
  });
});
