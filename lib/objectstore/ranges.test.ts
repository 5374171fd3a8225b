import { describe, expect, it } from "vitest";
import { parseContentRange } from "./gcs/content-range";
import { GcsError } from "./gcs/errors";

describe("parseContentRange (resumable PUT)", () => {
  it.each([
    ["bytes 0-262143/1000000", { kind: "chunk", start: 0, end: 262143, total: 1000000 }],
    ["bytes 262144-524287/*", { kind: "chunk", start: 262144, end: 524287, total: null }],
    ["bytes */1000000", { kind: "query", total: 1000000 }],
    ["bytes */*", { kind: "query", total: null }],
  ] as const)("%s", (header, expected) => {
    expect(parseContentRange(header)).toEqual(expected);
  });

  it.each(["bytes 10-5/100", "bytes 0-100/100", "bytes=0-1/2", "0-1/2", "bytes 0-1"])("refuses %s with 400", (header) => {
    expect(() => parseContentRange(header)).toThrow(GcsError);
    try {
      parseContentRange(header);
    } catch (err) {
      expect((err as GcsError).status).toBe(400);
    }
  });
});
