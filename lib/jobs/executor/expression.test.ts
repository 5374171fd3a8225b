import { describe, expect, it } from "vitest";
import { compileExpression } from "./expression";

const event = { name: "asset/changed", data: { assetId: 7, workspaceId: 2, kind: "asset_added", nested: { x: "y" } } };

describe("compileExpression", () => {
  it.each([
    ["event.data.assetId", 7],
    ["event.data.nested.x", "y"],
    ["event.data.missing", undefined],
    ["'asset-' + event.data.assetId", "asset-7"],
    ["event.data.workspaceId + '-' + event.data.assetId", "2-7"],
    ["event.data.assetId + 1", 8],
    ["event.data.kind == 'asset_added'", true],
    ["event.data.kind != \"asset_added\"", false],
    ["event.data.assetId == 7 && (event.data.kind == 'x' || event.data.workspaceId == 2)", true],
    ["true", true],
  ])("%s → %o", (src, expected) => {
    expect(compileExpression(src)({ event })).toEqual(expected);
  });

  it("matches the onFailure trigger the SDK syncs", () => {
    const matches = compileExpression("event.data.function_id == 'easel-encode-video'");
    expect(matches({ event: { data: { function_id: "easel-encode-video" } } })).toBe(true);
    expect(matches({ event: { data: { function_id: "easel-other" } } })).toBe(false);
  });

  it.each(["event.data.size > 10", "size(event.data)", "event.data.a ? 1 : 2", "event.data.a ==", "(event.data.a"])("refuses what it does not implement: %s", (src) => {
    expect(() => compileExpression(src)).toThrow();
  });
});
