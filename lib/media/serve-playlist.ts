import { errorResponse } from "../http/envelope";
import type { StorageDriver } from "../storage/types";
import { authorizePlaylist } from "./authorize-playlist";
import { rewrittenTextResponse } from "./rewritten-text";
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
  return rewrittenTextResponse(body, file.contentType, request, headers);
}
