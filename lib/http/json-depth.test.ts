import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH, jsonNestsDeeperThan } from "./json-depth";

const arrays = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const objects = (depth: number) => '{"a":'.repeat(depth - 1) + "{}" + "}".repeat(depth - 1);

describe("jsonNestsDeeperThan", () => {
  it("allows exactly 64 levels and refuses 65, for arrays, objects and both mixed", () => {
    expect(MAX_JSON_DEPTH).toBe(64);
    expect(jsonNestsDeeperThan(arrays(64))).toBe(false);
    expect(jsonNestsDeeperThan(arrays(65))).toBe(true);
    expect(jsonNestsDeeperThan(objects(64))).toBe(false);
    expect(jsonNestsDeeperThan(objects(65))).toBe(true);
    const mixed = (depth: number) => '{"a":['.repeat(depth / 2) + "1" + "]}".repeat(depth / 2);
    expect(jsonNestsDeeperThan(mixed(64))).toBe(false);
    expect(jsonNestsDeeperThan(mixed(66))).toBe(true);
    // The parser agrees on what a level is: 64 levels parse into 64 nested containers.
    let value: unknown = JSON.parse(arrays(64));
    let levels = 0;
    while (Array.isArray(value)) {
      levels++;
      value = value[0];
    }
    expect(levels).toBe(64);
  });

  it("counts depth, not the number of containers: many siblings at a shallow depth pass", () => {
    expect(jsonNestsDeeperThan(JSON.stringify({ a: Array.from({ length: 1000 }, () => ({ b: [1, { c: [] }] })) }))).toBe(false);
    expect(jsonNestsDeeperThan(`[${"[],".repeat(10_000)}[]]`, 2)).toBe(false);
    expect(jsonNestsDeeperThan("[[[]]]", 2)).toBe(true);
  });

  it("does not count brackets inside strings, escaped quotes and backslashes included", () => {
    const inString = JSON.stringify({ title: "[".repeat(500) + "{".repeat(500) });
    expect(jsonNestsDeeperThan(inString)).toBe(false);
    // An escaped quote does not end the string, so the brackets after it are still text.
    expect(jsonNestsDeeperThan(JSON.stringify({ t: `say \\"${"[".repeat(100)}` }))).toBe(false);
    expect(jsonNestsDeeperThan(`{"t":"a\\"${"[".repeat(100)}"}`)).toBe(false);
    // An escaped backslash before the quote does end it: the brackets after are structure.
    expect(jsonNestsDeeperThan(`{"t":"a\\\\"${",\"x\":" + arrays(70)}}`)).toBe(true);
    expect(jsonNestsDeeperThan(`{"t":"a\\\\\\"${"[".repeat(100)}"}`)).toBe(false);
    // Keys are strings too.
    expect(jsonNestsDeeperThan(`{"${"{".repeat(100)}":1}`)).toBe(false);
    // Unicode escapes and surrogate pairs are just characters.
    expect(jsonNestsDeeperThan(JSON.stringify({ t: "\u005b\ud83d\ude00" + "]".repeat(80) }))).toBe(false);
  });

  it("leaves malformed text to JSON.parse: an unclosed string or unbalanced closers are not 'too deep'", () => {
    expect(jsonNestsDeeperThan(`{"t":"${"[".repeat(100)}`)).toBe(false);
    expect(jsonNestsDeeperThan("]".repeat(100) + "[".repeat(100))).toBe(false);
    expect(jsonNestsDeeperThan("")).toBe(false);
  });

  it("answers a 100,000-deep body and a 1 MiB flat one in a few milliseconds", () => {
    const deep = arrays(100_000);
    let t = performance.now();
    expect(jsonNestsDeeperThan(deep)).toBe(true);
    const deepMs = performance.now() - t;

    const flat = JSON.stringify(Array.from({ length: 100_000 }, (_, i) => ({ id: i, tag: "x[y]{z}" })));
    expect(flat.length).toBeGreaterThan(1024 * 1024);
    const bigString = JSON.stringify({ text: 'a"b\\'.repeat(300_000) });
    t = performance.now();
    expect(jsonNestsDeeperThan(flat)).toBe(false);
    expect(jsonNestsDeeperThan(bigString)).toBe(false);
    const flatMs = performance.now() - t;
    // Bounds for a shared CI machine running the suite in parallel (the flat scan measured 141 ms
    // once under load); a quadratic scan would take minutes here, so these still catch one.
    expect(deepMs).toBeLessThan(500);
    expect(flatMs).toBeLessThan(1_000);
  });
});
