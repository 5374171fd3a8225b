import { describe, expect, it } from "vitest";
import { countChanges, diffField, diffMetadata, type FieldSpec } from "./metadata-diff";

type State = { title: string | null; comment?: string | null; size: number };
const specs: FieldSpec<State>[] = [
  { field: "title", label: "Title", value: (s) => s.title },
  { field: "comment", label: "Comment", value: (s) => s.comment },
  { field: "size", label: "Size", value: (s) => String(s.size) },
];

describe("metadata diff", () => {
  it.each([
    [null, "a", "added"],
    ["", "a", "added"],
    ["a", null, "removed"],
    ["a", "  ", "removed"],
    ["a", "b", "changed"],
    ["a", "a", "unchanged"],
    [null, undefined, "unchanged"],
    ["A", "a", "changed"],
  ] as const)("%j → %j is %s", (before, after, change) => {
    expect(diffField(before, after)).toBe(change);
  });

  it("compares every field in order, from the older state to the newer one", () => {
    const diffs = diffMetadata(specs, { title: "Sunrise", comment: null, size: 10 }, { title: "Sunset", comment: "warmer", size: 10 });
    expect(diffs).toEqual([
      { field: "title", label: "Title", change: "changed", before: "Sunrise", after: "Sunset" },
      { field: "comment", label: "Comment", change: "added", before: null, after: "warmer" },
      { field: "size", label: "Size", change: "unchanged", before: "10", after: "10" },
    ]);
    expect(countChanges(diffs)).toEqual({ added: 1, removed: 0, changed: 1, unchanged: 1 });
  });

  it("a field one state does not record is left out, not marked added or removed", () => {
    const withAuthor: FieldSpec<State & { author?: string }>[] = [
      ...specs,
      { field: "author", label: "Author", value: (s) => s.author, known: (s) => s.author !== undefined },
    ];
    const diffs = diffMetadata(withAuthor, { title: "a", size: 1, author: "tok_1" }, { title: "a", size: 1 });
    expect(diffs.map((d) => d.field)).toEqual(["title", "comment", "size"]);
    expect(diffMetadata(withAuthor, { title: "a", size: 1, author: "tok_1" }, { title: "a", size: 1, author: "tok_2" }).at(-1)).toMatchObject({ field: "author", change: "changed" });
  });

  it("a removed value shows what it was; swapping the states swaps added and removed", () => {
    const a: State = { title: "x", comment: "note", size: 1 };
    const b: State = { title: "x", comment: null, size: 2 };
    expect(diffMetadata(specs, a, b).map((d) => d.change)).toEqual(["unchanged", "removed", "changed"]);
    expect(diffMetadata(specs, b, a).map((d) => d.change)).toEqual(["unchanged", "added", "changed"]);
    expect(diffMetadata(specs, a, b)[1]).toMatchObject({ before: "note", after: null });
  });
});
