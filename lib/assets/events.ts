import type { Clock } from "../clock";
import type { Asset } from "../db/schema";
import type { Deps } from "../deps";
import { assetChanged, assetProcessingRequested } from "../jobs/events";
import { storeAndHandOff, type StageEvent } from "../jobs/outbox";
import type { Changes } from "./changes";

export type AssetChange = { asset: Asset; kind: "asset_added" | "asset_updated" | "asset_deleted"; changes?: Changes; snapshot?: unknown };

const changedData = (clock: Clock, input: AssetChange) => ({
  assetId: input.asset.id,
  workspaceId: input.asset.workspaceId,
  kind: input.kind,
  changes: input.changes,
  occurredAt: clock().toISOString(),
  snapshot: input.snapshot,
});

/**
 * Tells the job system an asset changed (webhook fan-out reads it): stored with `stage`, inside
 * the transaction of the write, so the event exists exactly when the change does (lib/jobs/outbox).
 */
export function stageAssetChanged(stage: StageEvent, clock: Clock, input: AssetChange): Promise<void> {
  return stage(assetChanged, changedData(clock, input));
}

/** Probe the media and make thumbnails (and, on plans that encode on upload, start the video encode), stored with the write. */
export function stageProcessing(stage: StageEvent, asset: Asset): Promise<void> {
  return stage(assetProcessingRequested, { assetId: asset.id, workspaceId: asset.workspaceId });
}

/** An asset change with no write of its own to join (tests place assets directly): stored, then handed on. */
export async function emitAssetChanged(deps: Deps, input: AssetChange): Promise<void> {
  await storeAndHandOff(deps, assetChanged, changedData(deps.clock, input));
}
