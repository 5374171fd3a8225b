import { gcsErrors } from "./errors";

export type ContentRange = { kind: "query"; total: number | null } | { kind: "chunk"; start: number; end: number; total: number | null };

/**
 * `Content-Range` of a resumable PUT: `bytes a-b/total`, `bytes a-b/*` (total not known yet), or
 * `bytes *\/total` / `bytes *\/*` (no bytes: a status query, or the end of an upload).
 */
export function parseContentRange(header: string): ContentRange {
  const m = /^bytes\s+(?:(\*)|(\d+)-(\d+))\/(\*|\d+)$/.exec(header.trim());
  if (!m) throw gcsErrors.invalidArgument(`Content-Range "${header}" is not of the form "bytes a-b/total", "bytes a-b/*" or "bytes */total".`);
  const total = m[4] === "*" ? null : Number(m[4]);
  if (m[1]) return { kind: "query", total };
  const start = Number(m[2]);
  const end = Number(m[3]);
  if (end < start || (total !== null && end >= total)) throw gcsErrors.invalidArgument(`Content-Range "${header}" is not a valid byte range.`);
  return { kind: "chunk", start, end, total };
}
