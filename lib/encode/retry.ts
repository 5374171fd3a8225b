import { getAssetOrThrow } from "../assets/get-asset";
import type { Asset, Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../errors";
import { encodeFinished, isVideoAsset, queueEncode } from "./status";

/**
 * POST /v1/:slug/assets/:token/retry_video_processing: queue an encode unless one has finished.
 * It cannot tell a running encode from a dead one, so it always queues another job (the spec);
 * that job waits while a live run of the asset holds the encode lease and then finds the work
 * done, or takes over from a run that died. A failed or never-started encode becomes `queued`;
 * a queued or running one keeps its status.
 */
export async function retryVideoProcessing(deps: Deps, input: { workspace: Workspace; token: string }): Promise<Asset> {
  const asset = await getAssetOrThrow(deps.db, input.workspace, input.token);
  if (!isVideoAsset(asset)) throw new DomainError("not_a_video", "This asset is not a video");
  if (!input.workspace.streamingEnabled) throw new DomainError("streaming_not_available", "Video streaming is turned off for this workspace");
  if (encodeFinished(asset)) throw new DomainError("encode_already_finished", "The video is already encoded; its stream_url is set");
  const queued = await queueEncode(deps, asset, ["none", "failed"], { always: true });
  return queued ?? asset;
}
