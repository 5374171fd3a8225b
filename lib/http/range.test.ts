import { describe, expect, it } from "vitest";
import { parseRange } from "./range";

// S3's reading of a Range header (lib/http/range.ts); tests/api/media-ranges.test.ts checks that the
// store and the media route answer a table of these alike.
describe("parseRange (GET Range header, as S3 reads it)", () => {
  it.each([
    ["bytes=0-9", 100, { start: 0, end: 9 }],
    ["bytes=90-", 100, { start: 90, end: 99 }],
    ["bytes=-10", 100, { start: 90, end: 99 }],
    ["bytes=-500", 100, { start: 0, end: 99 }],
    ["bytes=50-500", 100, { start: 50, end: 99 }],
    ["bytes=99-99", 100, { start: 99, end: 99 }],
    [" bytes=0-0 ", 100, { start: 0, end: 0 }],
    // Valid syntax, nothing to serve: 416.
    ["bytes=100-", 100, "unsatisfiable"],
    ["bytes=100-200", 100, "unsatisfiable"],
    ["bytes=-0", 100, "unsatisfiable"],
    ["bytes=0-", 0, "unsatisfiable"],
    ["bytes=-5", 0, "unsatisfiable"],
    // Not one byte range as S3 reads it: ignored, the whole body is served.
    ["bytes=9-0", 100, null],
    ["bytes=5-3", 100, null],
    ["bytes=0-1,5-6", 100, null],
    ["bytes=-", 100, null],
    ["bytes=", 100, null],
    ["bytes=a-b", 100, null],
    ["items=0-1", 100, null],
    ["", 100, null],
    [null, 100, null],
  ] as const)("%j of %i bytes → %j", (header, size, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });
});
