import { entityTag, matchesIfNoneMatch } from "../http/entity-tag";
import { errorResponse } from "../http/envelope";
import { parseRange } from "../http/range";
import type { StorageDriver } from "../storage/types";

/**
 * A stored file of an asset, whole or one byte range. The Range header is read as the embedded
 * store reads it (S3's rules, lib/http/range.ts), so a player gets the same answer here as from
 * a presigned store URL: 206 for one satisfiable range, 416 for a range starting past the end,
 * and the whole body (200) for a header that is not one byte range (`bytes=5-3`, several ranges).
 * Every answer carries a strong ETag of what it serves; a request naming it gets 304, which is
 * what makes a `no-cache` link cheap to revalidate.
 */
export async function serveBytes(storage: StorageDriver, key: string, request: Request, headers: Record<string, string>): Promise<Response> {
  const info = await storage.head(key);
  if (!info) return errorResponse("asset_not_found", "The stored file is missing");
  const etag = entityTag(key, info.etag, headers["Content-Type"] ?? "", headers["Content-Disposition"] ?? "");
  const tagged = { ...headers, ETag: etag };
  if (matchesIfNoneMatch(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers: tagged });
  const range = parseRange(request.headers.get("range"), info.size);
  if (range === "unsatisfiable") return new Response(null, { status: 416, headers: { ...tagged, "Content-Range": `bytes */${info.size}` } });
  if (range) {
    const body = await storage.read(key, { start: range.start, end: range.end });
    return new Response(body, { status: 206, headers: { ...tagged, "Content-Length": String(range.end - range.start + 1), "Content-Range": `bytes ${range.start}-${range.end}/${info.size}` } });
  }
  const body = request.method === "HEAD" ? null : await storage.read(key);
  return new Response(body, { headers: { ...tagged, "Content-Length": String(info.size) } });
}
