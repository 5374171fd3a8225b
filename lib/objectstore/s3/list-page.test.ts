import { describe, expect, it } from "vitest";
import type { ObjectRecord } from "../disk/objects";
import { listPage } from "./bucket-ops";

const records = ["a/1", "a/2", "b", "c/x/1", "c/y", "d"].map((key) => ({ key }) as ObjectRecord);
const page = (opts: Partial<Parameters<typeof listPage>[1]>) => {
  const p = listPage(records, { prefix: "", delimiter: "", after: "", maxKeys: 1000, ...opts });
  return { keys: p.contents.map((r) => r.key), prefixes: p.prefixes, truncated: p.truncated, last: p.last };
};

describe("listPage", () => {
  it("lists everything in key order without a delimiter", () => {
    expect(page({})).toEqual({ keys: ["a/1", "a/2", "b", "c/x/1", "c/y", "d"], prefixes: [], truncated: false, last: "d" });
  });

  it("rolls keys up at the delimiter, each common prefix counting once", () => {
    expect(page({ delimiter: "/" })).toEqual({ keys: ["b", "d"], prefixes: ["a/", "c/"], truncated: false, last: "d" });
    expect(page({ delimiter: "/", prefix: "c/" })).toEqual({ keys: ["c/y"], prefixes: ["c/x/"], truncated: false, last: "c/y" });
  });

  it("pages by maxKeys and resumes after a common prefix without repeating its keys", () => {
    const first = page({ delimiter: "/", maxKeys: 1 });
    expect(first).toEqual({ keys: [], prefixes: ["a/"], truncated: true, last: "a/" });
    const second = page({ delimiter: "/", maxKeys: 2, after: "a/" });
    expect(second).toEqual({ keys: ["b"], prefixes: ["c/"], truncated: true, last: "c/" });
    expect(page({ delimiter: "/", maxKeys: 2, after: "c/" })).toEqual({ keys: ["d"], prefixes: [], truncated: false, last: "d" });
  });

  it("answers max-keys=0 with an empty page that is not truncated, as S3 does", () => {
    expect(page({ maxKeys: 0 })).toEqual({ keys: [], prefixes: [], truncated: false, last: null });
    expect(page({ maxKeys: 0, delimiter: "/" })).toEqual({ keys: [], prefixes: [], truncated: false, last: null });
  });

  it("starts after a key (start-after, marker)", () => {
    expect(page({ after: "b" }).keys).toEqual(["c/x/1", "c/y", "d"]);
  });
});
