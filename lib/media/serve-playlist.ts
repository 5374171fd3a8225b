import { entityTag, matchesIfNoneMatch } from "../http/entity-tag";
import { errorResponse } from "../http/envelope";
import { storedBytesHeaders } from "../http/stored-bytes";
import type { StorageDriver } from "../storage/types";
import { authorizePlaylist } from "./authorize-playlist";
import type { StreamFileTarget } from "./stream-files";

/** The part of the request's query that authorised it (a signed link's exp and sig, or a board token). */
export function authorizationQuery(url: URL): string {
  const q = new URLSearchParams();
  for (const k of url.searchParams.get("sig") ? ["exp", "sig"] : ["token"]) {
    const v = url.searchParams.get(k);
    if (v !== null) q.set(k, v);
  }
  return q.toString();
}

/**
 * A playlist with the caller's authorisation added to each URI in it, so hls.js (or Safari)
 * fetches variant playlists, init segments and segments with the same signed link or board token.
 * Master URIs are relative to `/media/<asset>/stream`, whose folder is `/media/<asset>/`: they get
 * `stream/<run>/` in front, so every file the stream names is under a URL of its encode run
 * (lib/media/stream-files.ts). `headers` carry the Cache-Control the route chose (`no-cache`).
 */
export async function servePlaylist(storage: StorageDriver, file: StreamFileTarget, request: Request, headers: Record<string, string>): Promise<Response> {
  const url = new URL(request.url);
  if (!(await storage.head(file.key))) return errorResponse("asset_not_found", "The stream's file is missing");
  const text = await new Response(await storage.read(file.key)).text();
  const body = authorizePlaylist(text, file.master ? `stream/${file.run}/` : "", authorizationQuery(url));
  const etag = entityTag(body);
  // Playlists are rewritten per request: whole bodies only, no byte ranges.
  const { "Accept-Ranges": _ranges, ...rest } = headers;
  const common = { ...rest, ...storedBytesHeaders(file.contentType), ETag: etag };
  if (matchesIfNoneMatch(request.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers: common });
  const bytes = Buffer.from(body);
  return new Response(request.method === "HEAD" ? null : bytes, { headers: { ...common, "Content-Length": String(bytes.length) } });
}
