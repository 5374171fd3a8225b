import { and, eq, ne } from "drizzle-orm";
import { assets, type ProcessingError } from "../db/schema";
import type { Deps } from "../deps";
import { announceJobResult } from "../live/announce-from-job";
import { log } from "../log/logger.mjs";
import { workspaceStorage } from "../storage/workspace-storage";
import type { EncodeErrorCode } from "./errors";
import { encodeDir } from "./keys";
import type { Rung } from "./ladder";
import { readLease, releaseLease } from "./lease";
import { loadAssetAndWorkspace } from "./load";
import { deleteEncodeOutputs } from "./outputs";
import { removeWorkDir } from "./source-file";

/** `encode_status: failed` with its code, unless the bytes changed meanwhile or a stream was published. */
export async function markFailed(deps: Deps, assetId: number, storageKey: string, code: EncodeErrorCode, processingError?: ProcessingError): Promise<void> {
  const marked = await deps.db
    .update(assets)
    .set({ encodeStatus: "failed", encodeError: code, encodeProgress: null, ...(processingError ? { processingError } : {}) })
    .where(and(eq(assets.id, assetId), eq(assets.storageKey, storageKey), ne(assets.encodeStatus, "ready")))
    .returning({ id: assets.id });
  if (marked.length) await announceJobResult(deps.db, { kind: "encode_failed", assetId });
}

/**
 * A run's encode failed for good: record why, delete what it uploaded (none of it was published),
 * give up the lease and the scratch folder.
 */
export async function failEncode(
  deps: Deps,
  input: { assetId: number; storageKey: string; storageKind: "s3" | "gcs"; runId: string; rungs: Rung[]; code: EncodeErrorCode; detail: string; limit?: ProcessingError | null },
): Promise<{ status: "failed"; code: EncodeErrorCode }> {
  log().error({ component: "encode", asset_id: input.assetId, code: input.code, detail: input.detail }, "video encode failed; the asset's encode_status is failed");
  // Outputs first: once the asset reads `failed`, nothing of this run is left behind.
  const storage = workspaceStorage(deps, { storageKind: input.storageKind });
  await deleteEncodeOutputs(storage, encodeDir(input.storageKey, input.runId), input.rungs.map((r) => r.name)).catch((err: unknown) => {
    // The failure is still recorded below; the run's unpublished files stay behind as orphans nothing links to.
    log().warn({ component: "encode", asset_id: input.assetId, run_id: input.runId, err }, "could not delete a failed encode's outputs; they stay in storage unreferenced");
  });
  // A step over a media limit is also the asset's processing_error (docs/security.md).
  await markFailed(deps, input.assetId, input.storageKey, input.code, input.limit ?? undefined);
  await releaseLease(storage, input.storageKey, input.runId);
  await removeWorkDir(input.runId);
  return { status: "failed", code: input.code };
}

/**
 * The onFailure backstop, for a run that failed outside the handler's own failure path: if the
 * run still holds the asset's lease, the encode is marked failed and the lease given up.
 */
export async function failAbandonedRun(deps: Deps, input: { assetId: number; runId: string }): Promise<{ marked: boolean }> {
  const row = await loadAssetAndWorkspace(deps.db, input.assetId);
  if (!row) return { marked: false };
  const storage = workspaceStorage(deps, row.workspace);
  const lease = await readLease(storage, row.asset.storageKey);
  if (lease?.runId !== input.runId) return { marked: false };
  await markFailed(deps, row.asset.id, row.asset.storageKey, "encode_failed");
  await releaseLease(storage, row.asset.storageKey, input.runId);
  await removeWorkDir(input.runId);
  return { marked: true };
}
