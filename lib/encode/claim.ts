import { and, eq } from "drizzle-orm";
import { assets, type StorageKind } from "../db/schema";
import type { Deps } from "../deps";
import { announceJobResult } from "../live/announce-from-job";
import { workspaceStorage } from "../storage/workspace-storage";
import type { EncodeErrorCode } from "./errors";
import { markFailed } from "./fail";
import { streamBelongsTo } from "./keys";
import { isLive, readLease, writeLease } from "./lease";
import { loadAssetAndWorkspace } from "./load";
import { logLost } from "./log-lost";
import { sweepWorkDirs } from "./source-file";
import { isVideoAsset } from "./status";

/** What the run encodes: the head's bytes at claim time (later steps never look at a newer head). */
export type EncodeOwner = { kind: "owner"; assetId: number; storageKey: string; storageKind: StorageKind };

export type Claim =
  | EncodeOwner
  | { kind: "wait"; holder: string }
  | { kind: "done"; reason: "gone" | "already_encoded" | EncodeErrorCode };

/**
 * The first step of a run: decide whether it encodes. Nothing to do when the asset is gone or its
 * current bytes already have a published stream; failed at once when the asset cannot be
 * streamed; wait while another live run holds the lease (`takeOver` ignores it); otherwise take
 * the lease and set `encode_status: processing`.
 */
export async function claimEncode(deps: Deps, input: { assetId: number; runId: string; takeOver?: boolean }): Promise<Claim> {
  const row = await loadAssetAndWorkspace(deps.db, input.assetId);
  if (!row) return { kind: "done", reason: "gone" };
  const { asset, workspace } = row;
  if (asset.encodeStatus === "ready" && streamBelongsTo(asset.streamKey, asset.storageKey)) return { kind: "done", reason: "already_encoded" };
  const refusal: EncodeErrorCode | null = !workspace.streamingEnabled ? "streaming_not_available" : !isVideoAsset(asset) ? "not_a_video" : null;
  if (refusal) {
    await markFailed(deps, asset.id, asset.storageKey, refusal);
    return { kind: "done", reason: refusal };
  }
  const storage = workspaceStorage(deps, workspace);
  const lease = await readLease(storage, asset.storageKey);
  if (!input.takeOver && isLive(lease, input.runId, deps.clock())) return { kind: "wait", holder: lease.runId };
  await writeLease(storage, asset.storageKey, input.runId, deps.clock);
  await deps.db
    .update(assets)
    .set({ encodeStatus: "processing", encodeError: null, encodeProgress: null })
    .where(and(eq(assets.id, asset.id), eq(assets.storageKey, asset.storageKey)));
  await announceJobResult(deps.db, { kind: "encode_started", assetId: asset.id });
  await sweepWorkDirs().catch(logLost("sweeping old encode work folders (swept again at the next claim)"));
  return { kind: "owner", assetId: asset.id, storageKey: asset.storageKey, storageKind: workspace.storageKind };
}
