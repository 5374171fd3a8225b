import { and, eq } from "drizzle-orm";
import { assets, assetVersions, workspaces, type Asset, type Thumbnail, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { isGatedPlan, isRevertable } from "../versions/plans";
import type { MediaKind } from "./links";
import { storyboardFileKey, type StoryboardFileTarget } from "./storyboard-files";
import { streamFileKey, type StreamFileTarget } from "./stream-files";

export type MediaRequest = { assetToken: string; version: number | null; kind: MediaKind; preview: boolean; rest: string[] };

const KINDS: MediaKind[] = ["display", "stream", "storyboard", "thumb-small", "thumb-medium", "thumb-large", "original"];

/** `/media/<asset>[/v<N>]/<kind>[-preview][/<file>…]` → its parts, or null for anything else. */
export function parseMediaPath(segments: string[]): MediaRequest | null {
  const [assetToken, ...tail] = segments;
  if (!assetToken || !/^[A-Za-z0-9]{1,64}$/.test(assetToken)) return null;
  let version: number | null = null;
  if (tail[0] && /^v\d{1,9}$/.test(tail[0])) version = Number(tail.shift()!.slice(1));
  const rawKind = tail.shift() ?? "";
  const preview = rawKind.endsWith("-preview");
  const kind = (preview ? rawKind.slice(0, -"-preview".length) : rawKind) as MediaKind;
  if (!KINDS.includes(kind)) return null;
  return { assetToken, version, kind, preview, rest: tail };
}

/** `stream`: a file of the asset's HLS stream (`master`: the master playlist itself). */
export type StreamFile = Omit<StreamFileTarget, "key" | "contentType">;

/** `storyboard`: the track (rewritten per request) or the sprite of the published run. */
export type StoryboardFile = Omit<StoryboardFileTarget, "key" | "contentType">;

export type MediaTarget =
  | { asset: Asset; workspace: Workspace; key: string; contentType: string; preview: boolean; stream?: StreamFile; storyboard?: StoryboardFile }
  | { missing: true; asset?: Asset; workspace?: Workspace };

function thumbKey(thumbs: Thumbnail[], size: string) {
  return thumbs.find((t) => t.size === size)?.key ?? null;
}

/**
 * Which stored object a media link serves: the head's (display = the large thumbnail when there
 * is one, else the original) or stored version N's. A version past the revert window on a gated
 * plan serves only watermarked thumbnail previews, never its original.
 */
export async function resolveMedia(deps: Deps, req: MediaRequest): Promise<MediaTarget> {
  const [row] = await deps.db.select({ asset: assets, workspace: workspaces }).from(assets).innerJoin(workspaces, eq(workspaces.id, assets.workspaceId)).where(eq(assets.token, req.assetToken));
  if (!row) return { missing: true };
  const { asset, workspace } = row;
  if (req.kind === "stream") {
    // Only the head has a stream, and only once an encode of its current bytes was published.
    const file = req.version === null && !req.preview && asset.encodeStatus === "ready" ? streamFileKey(asset.streamKey, req.rest) : null;
    return file ? { asset, workspace, key: file.key, contentType: file.contentType, preview: false, stream: { master: file.master, playlist: file.playlist, immutable: file.immutable, run: file.run } } : { missing: true, asset, workspace };
  }
  if (req.kind === "storyboard") {
    // The storyboard of the published stream's run, and only while that stream is the head's.
    const file = req.version === null && !req.preview && asset.encodeStatus === "ready" ? storyboardFileKey(asset.streamKey, asset.storyboardKey, req.rest) : null;
    return file ? { asset, workspace, key: file.key, contentType: file.contentType, preview: false, storyboard: { track: file.track, run: file.run } } : { missing: true, asset, workspace };
  }
  let content = { storageKey: asset.storageKey, mediaType: asset.mediaType, thumbnails: asset.thumbnails };
  let withheld = false;
  if (req.version !== null) {
    const [v] = await deps.db.select().from(assetVersions).where(and(eq(assetVersions.assetId, asset.id), eq(assetVersions.versionNumber, req.version)));
    if (!v) return { missing: true, asset, workspace };
    content = v;
    withheld = isGatedPlan(workspace) && !isRevertable(workspace, v.createdAt, deps.clock());
  }
  const preview = req.preview || withheld;
  let key: string | null = null;
  let contentType = "image/jpeg";
  if (req.kind === "original" || (req.kind === "display" && !thumbKey(content.thumbnails, "large"))) {
    if (withheld) return { missing: true, asset, workspace };
    key = content.storageKey;
    contentType = content.mediaType;
  } else if (req.kind === "display") key = thumbKey(content.thumbnails, "large");
  else if (req.kind.startsWith("thumb-")) key = thumbKey(content.thumbnails, req.kind.slice("thumb-".length));
  if (!key) return { missing: true, asset, workspace };
  return { asset, workspace, key, contentType, preview: preview && contentType === "image/jpeg" };
}
