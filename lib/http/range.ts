/**
 * The one reading of a GET's `Range` header, shared by the embedded object store and the media
 * route so that the same request gets the same answer from both. It follows S3, which applies
 * RFC 7233 this way:
 * - one satisfiable byte range → those bytes (206); an end past the last byte is clamped;
 * - a range whose syntax is valid but which starts at or past the end (`bytes=100-` of 100
 *   bytes), asks for the last 0 bytes (`bytes=-0`), or any range of an empty object → 416;
 * - anything S3 does not read as one byte range is ignored and the whole body is served (200):
 *   another unit, several ranges, `bytes=-`, or a last byte before the first (`bytes=5-3`, which
 *   RFC 7233 calls invalid, not unsatisfiable).
 * Written here rather than taken from a package: the kept range parsers (range-parser) answer
 * `bytes=5-3` and several ranges differently from S3, and these dozen lines are the whole rule.
 */
export type ByteRange = { start: number; end: number };

/** One `bytes=` range resolved against `size`; null when absent or not one byte range (serve whole), "unsatisfiable" for 416. */
export function parseRange(header: string | null, size: number): ByteRange | null | "unsatisfiable" {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? "");
  if (!m || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size) return "unsatisfiable";
  if (end < start) return null;
  return { start, end };
}
