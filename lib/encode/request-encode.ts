import type { Asset, Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { encodesOnUpload } from "../versions/plans";
import { loadAssetAndWorkspace } from "./load";
import { isVideoAsset, queueEncode } from "./status";

/**
 * GET /v1/:slug/assets/:token on a plan that does not encode on upload (Free, Pro, Creative):
 * reading a video whose stream is missing starts its encode, unless one is queued or running.
 * Only `none` starts one: a failed encode waits for retry_video_processing, because clients are
 * told to poll this read while they wait, and restarting failures on reads would turn that
 * polling into an endless encode loop on a file that cannot be encoded.
 *
 * On plans that encode on upload, processing queues the encode; a read starts one only for a
 * video that processing has already probed and nobody queued (a revert to other bytes, which
 * restores the old version's probe instead of processing again, or a plan upgraded from Free).
 *
 * Returns the asset as it should be presented (`encode_status: queued` once started). The job's
 * request is stored with the status change, so a job system unreachable at that moment delays the
 * encode but neither fails the read nor loses the request.
 */
export async function startEncodeOnRead(deps: Deps, workspace: Workspace, asset: Asset): Promise<Asset> {
  if (!workspace.streamingEnabled || !isVideoAsset(asset) || asset.streamKey !== null || asset.encodeStatus !== "none") return asset;
  if (encodesOnUpload(workspace) && asset.media.width === undefined) return asset; // not processed yet: processing will queue it
  // Null: another reader (or a version write) got there first.
  return (await queueEncode(deps, asset, ["none"])) ?? asset;
}

/**
 * After processing an upload or a version write (the media type is now sniffed from the bytes):
 * on plans that encode on upload (Team, Business, Enterprise and their trials), queue the encode.
 */
export async function queueEncodeAfterProcessing(deps: Deps, assetId: number): Promise<{ queued: boolean }> {
  const row = await loadAssetAndWorkspace(deps.db, assetId);
  if (!row) return { queued: false };
  const { asset, workspace } = row;
  if (!encodesOnUpload(workspace) || !workspace.streamingEnabled || !isVideoAsset(asset)) return { queued: false };
  if (asset.streamKey !== null || asset.encodeStatus !== "none") return { queued: false };
  return { queued: (await queueEncode(deps, asset, ["none"])) !== null };
}
