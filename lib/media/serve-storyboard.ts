import { errorResponse } from "../http/envelope";
import type { StorageDriver } from "../storage/types";
import { rewrittenTextResponse } from "./rewritten-text";
import { authorizationQuery } from "./serve-playlist";
import { authorizeTrack, type StoryboardFileTarget } from "./storyboard-files";

/** At most this much of a stored track is read (100 cues take about 6 KB). */
const MAX_TRACK_BYTES = 256 * 1024;

/**
 * The storyboard's WebVTT track with the caller's authorisation added to each cue's sprite URL
 * (as playlists are served, lib/media/serve-playlist.ts). The track's URL is `/media/<asset>/storyboard`,
 * whose folder is `/media/<asset>/`, so the sprite becomes `storyboard/<run>/storyboard.jpg?…#xywh=…`.
 * Rewritten per request: whole bodies only, `no-cache` with an ETag of what was sent.
 */
export async function serveStoryboardTrack(storage: StorageDriver, file: StoryboardFileTarget, request: Request, headers: Record<string, string>): Promise<Response> {
  const info = await storage.head(file.key);
  if (!info) return errorResponse("asset_not_found", "The storyboard's file is missing");
  if (info.size > MAX_TRACK_BYTES) return errorResponse("asset_not_found", "The storyboard's track is not one Easel wrote");
  const text = await new Response(await storage.read(file.key)).text();
  const body = authorizeTrack(text, `storyboard/${file.run}/`, authorizationQuery(new URL(request.url)));
  return rewrittenTextResponse(body, file.contentType, request, headers);
}
