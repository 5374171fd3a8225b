import type { Deps } from "../deps";
import { errorResponse, toErrorResponse } from "../http/envelope";
import { storedBytesHeaders } from "../http/stored-bytes";
import { storageForJob } from "../uploads/storage-for-request";
import { authorizeMedia } from "./authorize-media";
import { parseMediaPath, resolveMedia } from "./resolve-media";
import { renderPreview } from "./thumbnails";
import { servePlaylist, streamCacheControl } from "../encode/serve-stream";

const forbidden = () => errorResponse("unauthenticated", "This media link is expired or invalid");

function parseRange(header: string | null, size: number): { start: number; end: number } | null | "invalid" {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return "invalid";
  let start = m[1] === "" ? size - Number(m[2]) : Number(m[1]);
  let end = m[1] === "" || m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  start = Math.max(0, start);
  if (start > end || start >= size) return "invalid";
  return { start, end };
}

/** GET /media/…: streams an asset's original, thumbnails, previews or HLS stream files, with Range support. */
export async function serveMedia(deps: Deps, request: Request, segments: string[]): Promise<Response> {
  try {
    const parsed = parseMediaPath(segments);
    if (!parsed) return errorResponse("route_not_found", "No such media");
    const target = await resolveMedia(deps, parsed);
    if ("missing" in target) {
      if (target.asset && target.workspace && !(await authorizeMedia(deps, new URL(request.url), parsed, target.asset, target.workspace))) return forbidden();
      return errorResponse("asset_not_found", "No such media for this asset");
    }
    if (!(await authorizeMedia(deps, new URL(request.url), parsed, target.asset, target.workspace))) return forbidden();
    const storage = storageForJob(deps, target.workspace);
    const cacheControl = target.stream ? streamCacheControl(target.stream) : "private, max-age=60";
    // Media links are capability URLs: the signature or board token in the URL is the whole
    // authorisation and no cookie is ever read, so letting any origin read the answer (players and
    // apps on other sites) gives a page nothing its holder of the URL did not already have.
    const headers: Record<string, string> = { ...storedBytesHeaders(target.contentType), "Cache-Control": cacheControl, "Access-Control-Allow-Origin": "*", "Accept-Ranges": "bytes" };
    if (target.stream?.playlist) return await servePlaylist(storage, { key: target.key, contentType: target.contentType, ...target.stream }, request, headers);
    if (target.preview) {
      const previewKey = `${target.key}.preview.jpg`;
      if (!(await storage.head(previewKey))) {
        const source = Buffer.from(await new Response(await storage.read(target.key)).arrayBuffer());
        await storage.write(previewKey, await renderPreview(source), "image/jpeg");
      }
      return new Response(await storage.read(previewKey), { headers });
    }
    const info = await storage.head(target.key);
    if (!info) return errorResponse("asset_not_found", "The stored file is missing");
    const range = parseRange(request.headers.get("range"), info.size);
    if (range === "invalid") return new Response(null, { status: 416, headers: { ...headers, "Content-Range": `bytes */${info.size}` } });
    if (range) {
      const body = await storage.read(target.key, { start: range.start, end: range.end });
      return new Response(body, { status: 206, headers: { ...headers, "Content-Length": String(range.end - range.start + 1), "Content-Range": `bytes ${range.start}-${range.end}/${info.size}` } });
    }
    const body = request.method === "HEAD" ? null : await storage.read(target.key);
    return new Response(body, { headers: { ...headers, "Content-Length": String(info.size), ETag: `"${info.etag.replace(/"/g, "")}"` } });
  } catch (err) {
    return toErrorResponse(err, request);
  }
}

