import { eq } from "drizzle-orm";
import { stageAssetChanged, stageProcessing } from "../assets/events";
import type { Principal } from "../auth/principal";
import { creatorLabel } from "../auth/principal";
import { findBoard } from "../boards";
import { assetBoards, assets, type Asset, type UploadSession, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { DomainError, notFound } from "../errors";
import { transactionWithEvents, wakeRelay } from "../jobs/outbox";
import type { StorageDriver } from "../storage/types";
import { newToken } from "../tokens";
import { receiveBytes } from "./receive-bytes";
import { claimSession, loadSession, recordSessionAsset, reloadSession } from "./session";

export type CompleteInput = {
  signedStorageId: string;
  multipartUploadId?: string;
  title?: string;
  description?: string;
  collectionToken?: string;
};

export type CompleteResult = { asset: Asset; created: boolean };

async function assetOfSession(deps: Deps, session: UploadSession | undefined): Promise<CompleteResult> {
  // Gone only with its workspace, deleted while this request ran: the id names nothing now.
  if (!session) throw new DomainError("invalid_signed_storage_id", "The signed_storage_id is not valid for this workspace (tampered, expired or unknown)");
  if (session.consumedAs !== "asset" || session.assetId === null) {
    throw new DomainError("invalid_signed_storage_id", "This signed_storage_id was already used for a version write");
  }
  const [asset] = await deps.db.select().from(assets).where(eq(assets.id, session.assetId));
  if (!asset) throw notFound("asset_not_found", "The asset created from this upload was deleted; asset");
  // Its events were stored with the first completion's commit; if that process died before
  // handing them on, they wait in the outbox: have this process's relay look now.
  wakeRelay();
  return { asset, created: false };
}

/**
 * upload_complete: turns uploaded bytes into an asset (head_version_number 1), optionally on a
 * board. Idempotent: completing the same signed_storage_id again returns the asset of the first
 * completion. Two concurrent completions race on the session row: the one whose
 * `pending → completed` update wins creates the asset, the other returns it. The asset's
 * processing and asset_added events are stored in the same transaction (lib/jobs/outbox).
 */
export async function completeUpload(
  deps: Deps,
  storage: StorageDriver,
  input: { workspace: Workspace; principal: Principal; body: CompleteInput },
): Promise<CompleteResult> {
  const { workspace, body } = input;
  const session = await loadSession(deps, workspace, body.signedStorageId);
  if (session.status === "completed") return assetOfSession(deps, session);

  const boardToken = body.collectionToken ?? session.collectionToken;
  const board = boardToken ? await findBoard(deps.db, workspace.id, boardToken) : null;
  if (boardToken && !board) throw notFound("board_not_found", "Board");

  const bytes = await receiveBytes(storage, session, body.multipartUploadId);

  const now = deps.clock();
  const created = await transactionWithEvents(deps, async (tx, stage) => {
    if (!(await claimSession(tx, session.id, { as: "asset" }, now))) return null;
    const [asset] = await tx
      .insert(assets)
      .values({
        workspaceId: workspace.id,
        token: newToken(),
        title: body.title ?? session.title ?? "Untitled",
        description: body.description ?? null,
        mediaType: bytes.mediaType,
        size: bytes.size,
        md5: bytes.md5,
        storageKey: bytes.key,
        createdByToken: creatorLabel(input.principal),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (board) await tx.insert(assetBoards).values({ assetId: asset.id, boardId: board.board.id, createdAt: now });
    await recordSessionAsset(tx, session.id, asset.id);
    // ---- with the asset: thumbnails/probe, and the asset_added webhooks
    await stageProcessing(stage, asset);
    await stageAssetChanged(stage, deps.clock, { asset, kind: "asset_added" });
    return asset;
  });
  if (created) return { asset: created, created: true };
  return assetOfSession(deps, await reloadSession(deps.db, session.id));
}
