import type { Deps } from "../deps";
import type { Asset } from "../db/schema";
import { assetChanged, assetProcessingRequested } from "../jobs/events";
import type { Changes } from "./changes";

/**
 * Tells the job system an asset changed (webhook fan-out reads it). Called after the write's
 * transaction committed. A failure to enqueue is logged, not thrown: the write itself succeeded and
 * the client must not retry it.
 */
export async function emitAssetChanged(
  deps: Deps,
  input: { asset: Asset; kind: "asset_added" | "asset_updated" | "asset_deleted"; changes?: Changes; snapshot?: unknown },
) {
  try {
    await deps.jobs.send(assetChanged, {
      assetId: input.asset.id,
      workspaceId: input.asset.workspaceId,
      kind: input.kind,
      changes: input.changes,
      occurredAt: deps.clock().toISOString(),
      snapshot: input.snapshot,
    });
  } catch (err) {
    console.error(`[easel] could not enqueue ${input.kind} for asset ${input.asset.id}`, err);
  }
}

/** Probe the media and make thumbnails (and, on plans that encode on upload, start the video encode). */
export async function requestProcessing(deps: Deps, asset: Asset) {
  try {
    await deps.jobs.send(assetProcessingRequested, { assetId: asset.id });
  } catch (err) {
    console.error(`[easel] could not enqueue processing of asset ${asset.id}`, err);
  }
}

