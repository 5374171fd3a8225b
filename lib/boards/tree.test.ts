import { describe, expect, it } from "vitest";
import { DomainError } from "../errors";
import { MAX_BOARD_DEPTH, ancestorIdsOf, isWithin, pathOf, placeUnder } from "./tree";

const node = (id: number, ancestry: string, workspaceId = 1) => ({ id, workspaceId, ancestry, depth: ancestry.split("/").length - 2 });

describe("materialised paths", () => {
  it("a board's path is its ancestry followed by its id; ancestors read back root first", () => {
    expect(pathOf(node(9, "/1/5/"))).toBe("/1/5/9/");
    expect(pathOf(node(3, "/"))).toBe("/3/");
    expect(ancestorIdsOf(node(9, "/1/5/"))).toEqual([1, 5]);
    expect(ancestorIdsOf(node(3, "/"))).toEqual([]);
  });

  it("within: the board itself and its descendants, not a sibling whose id shares a prefix, nor another workspace", () => {
    const root = node(5, "/1/");
    expect(isWithin(root, root)).toBe(true);
    expect(isWithin(node(9, "/1/5/"), root)).toBe(true);
    expect(isWithin(node(12, "/1/5/9/"), root)).toBe(true);
    expect(isWithin(node(51, "/1/"), root)).toBe(false);
    expect(isWithin(node(60, "/1/51/"), root)).toBe(false);
    expect(isWithin(node(1, "/"), root)).toBe(false);
    expect(isWithin(node(9, "/1/5/", 2), root)).toBe(false);
  });

  it("placement: top level, under a parent, and refused past the limit on parent_token", () => {
    expect(placeUnder(null)).toEqual({ parentId: null, ancestry: "/", depth: 0 });
    expect(placeUnder({ id: 9, workspaceId: 1, ancestry: "/1/5/", depth: 2 })).toEqual({ parentId: 9, ancestry: "/1/5/9/", depth: 3 });
    expect(placeUnder({ id: 9, workspaceId: 1, ancestry: "/", depth: MAX_BOARD_DEPTH - 2 }).depth).toBe(MAX_BOARD_DEPTH - 1);
    let refused: unknown;
    try {
      placeUnder({ id: 9, workspaceId: 1, ancestry: "/", depth: MAX_BOARD_DEPTH - 1 });
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: "validation_failed", extensions: { field: "parent_token" } });
  });
});
