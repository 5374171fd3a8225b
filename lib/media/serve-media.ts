import type { Deps } from "../deps";
import { errorResponse, toErrorResponse } from "../http/envelope";
import { storedBytesHeaders } from "../http/stored-bytes";
import { workspaceStorage } from "../storage/workspace-storage";
import { authorizeMedia } from "./authorize-media";
import { parseMediaPath, resolveMedia } from "./resolve-media";
import { serveBytes } from "./serve-bytes";
import { servePlaylist } from "./serve-playlist";
import { serveStoryboardTrack } from "./serve-storyboard";
import { streamCacheControl } from "./stream-files";
import { renderPreview } from "./thumbnails";

const forbidden = () => errorResponse("unauthenticated", "This media link is expired or invalid");

/**
 * GET /media/…: streams an asset's original, thumbnails, previews or HLS stream files, with Range support.
 * Caching (contract §14): a link the API hands out names the asset, not its bytes, and serves
 * the new content after a version write or revert, so its answers are `no-cache` with a strong
 * ETag (every use revalidates; an unchanged answer costs one 304). Only stream files and the
 * storyboard sprite under an encode run's URL may be kept (lib/media/stream-files.ts,
 * lib/media/storyboard-files.ts).
 */
export async function serveMedia(deps: Deps, request: Request, segments: string[]): Promise<Response> {
  try {
    const parsed = parseMediaPath(segments);
    if (!parsed) return errorResponse("route_not_found", "No such media");
    const target = await resolveMedia(deps, parsed);
    if ("missing" in target) {
      if (target.asset && target.workspace && (await authorizeMedia(deps, new URL(request.url), parsed, target.asset, target.workspace)) === null) return forbidden();
      return errorResponse("asset_not_found", "No such media for this asset");
    }
    const authorisedUntil = await authorizeMedia(deps, new URL(request.url), parsed, target.asset, target.workspace);
    if (authorisedUntil === null) return forbidden();
    const storage = workspaceStorage(deps, target.workspace);
    // A storyboard's sprite is named by its run like a segment; its track follows the head like a playlist.
    const runFile = target.stream ?? (target.storyboard ? { immutable: !target.storyboard.track } : null);
    const cacheControl = runFile ? streamCacheControl(runFile, authorisedUntil, deps.clock().getTime()) : "no-cache";
    // Media links are capability URLs: the signature or board token in the URL is the whole
    // authorisation and no cookie is ever read, so letting any origin read the answer (players and
    // apps on other sites) gives a page nothing its holder of the URL did not already have.
    const headers: Record<string, string> = { ...storedBytesHeaders(target.contentType), "Cache-Control": cacheControl, "Access-Control-Allow-Origin": "*", "Accept-Ranges": "bytes" };
    if (target.stream?.playlist) return await servePlaylist(storage, { key: target.key, contentType: target.contentType, ...target.stream }, request, headers);
    if (target.storyboard?.track) return await serveStoryboardTrack(storage, { key: target.key, contentType: target.contentType, ...target.storyboard }, request, headers);
    if (target.preview) {
      const previewKey = `${target.key}.preview.jpg`;
      if (!(await storage.head(previewKey))) {
        const source = Buffer.from(await new Response(await storage.read(target.key)).arrayBuffer());
        await storage.write(previewKey, await renderPreview(source), "image/jpeg");
      }
      return await serveBytes(storage, previewKey, request, headers);
    }
    return await serveBytes(storage, target.key, request, headers);
  } catch (err) {
    return toErrorResponse(err, request);
  }
}
