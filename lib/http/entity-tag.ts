import crypto from "node:crypto";

/**
 * A strong ETag over everything that makes one answer differ from another: for a media link, the
 * stored object's own digest and the headers that say how to read it (type, disposition), so a
 * new version with the same bytes but another type is not taken for the old answer.
 */
export function entityTag(...parts: string[]): string {
  return `"${crypto.createHash("sha256").update(parts.join("\n")).digest("base64url").slice(0, 27)}"`;
}

/**
 * Whether an If-None-Match header names `etag` (a list, `*`, or a weak form of it: RFC 9110
 * compares If-None-Match weakly). Then a GET or HEAD is answered 304 with no body.
 */
export function matchesIfNoneMatch(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const want = etag.replace(/^W\//, "");
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === "*" || tag === want;
  });
}
