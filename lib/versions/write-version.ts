import { eq } from "drizzle-orm";
import { diffFields, hasChanges } from "../assets/changes";
import { getAssetOrThrow } from "../assets/get-asset";
import { creatorLabel, type Principal } from "../auth/principal";
import type { Tx } from "../db";
import { assets, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { deleteReplacedStream, type ReplacedBytes } from "../encode/outputs";
import { DomainError } from "../errors";
import type { StorageDriver } from "../storage/types";
import { receiveBytes } from "../uploads/receive-bytes";
import { claimSession, loadSession, reloadSession } from "../uploads/session";
import { assertBoardVersionWriteable, assertHeadMatches, assertVersioningAllowed, lockAsset } from "./gates";
import { finishWithin, type VersionWriteResult, type WithinWrite } from "./revert-asset";
import { snapshotHead } from "./snapshot";

export type Metadata = { title?: string; description?: string | null; text?: string | null };

export type WriteVersionInput = {
  workspace: Workspace;
  principal: Principal;
  token: string;
  /** Bytes from upload_prepare; without it the write is a metadata-only checkpoint. */
  signedStorageId?: string;
  mediaType?: string;
  comment?: string;
  metadata: Metadata;
  ifMatch?: number;
  /** The caller's last step inside the write's transaction (its other fields and its events). */
  within?: WithinWrite;
};

const nonEmpty = (s: string | undefined) => (s !== undefined && s.trim() !== "" ? s : null);
const metadataOf = (a: Metadata) => ({ title: a.title, description: a.description, text: a.text });

/**
 * A version-writing update. With bytes: the head is snapshotted and the new bytes (and any
 * metadata in the same request) become the head. Without bytes: a checkpoint when title,
 * description or text change or a non-empty comment is given, else nothing happens (200).
 */
export async function writeVersion(deps: Deps, storage: StorageDriver, input: WriteVersionInput): Promise<VersionWriteResult> {
  // ---- access, plan and board gates
  const current = await getAssetOrThrow(deps.db, input.workspace, input.token);
  assertVersioningAllowed(input.workspace);
  await assertBoardVersionWriteable(deps.db, current.id);
  assertHeadMatches(current, input.ifMatch);
  return input.signedStorageId ? writeBytes(deps, storage, input, input.signedStorageId) : checkpoint(deps, input);
}

async function writeBytes(deps: Deps, storage: StorageDriver, input: WriteVersionInput, signedStorageId: string): Promise<VersionWriteResult> {
  const session = await loadSession(deps, input.workspace, signedStorageId);
  if (session.status === "completed" && !(session.consumedAs === "version")) {
    throw new DomainError("invalid_signed_storage_id", "This signed_storage_id was already used to create an asset");
  }
  // ---- bytes are checked before the row lock is taken (no storage I/O under it)
  const bytes = session.status === "pending" ? await receiveBytes(storage, session) : null;
  const now = deps.clock();
  const write = async (tx: Tx): Promise<VersionWriteResult & { replaced?: ReplacedBytes }> => {
    const asset = await lockAsset(tx, input.workspace, input.token);
    const claimed = await claimSession(tx, session.id, { as: "version", assetId: asset.id }, now);
    // A retried request whose bytes already became a version of this asset writes nothing more.
    if (!claimed || !bytes) {
      const again = await reloadSession(tx, session.id);
      if (again?.assetId !== asset.id) throw new DomainError("invalid_signed_storage_id", "This signed_storage_id was already used for another asset");
      return { asset, headVersionNumber: asset.nextVersionNumber, changes: {}, wrote: false };
    }
    assertHeadMatches(asset, input.ifMatch);
    await snapshotHead(tx, asset, { comment: nonEmpty(input.comment), now });
    const meta = metadataOf(input.metadata);
    const [updated] = await tx
      .update(assets)
      .set({
        ...Object.fromEntries(Object.entries(meta).filter(([, v]) => v !== undefined)),
        mediaType: input.mediaType ?? bytes.mediaType,
        size: bytes.size,
        md5: bytes.md5,
        storageKey: bytes.key,
        thumbnails: [],
        media: {},
        headSource: "UPLOAD",
        revertedFrom: null,
        // The stream, its storyboard and an encode's progress were the replaced bytes'.
        streamKey: null,
        storyboardKey: null,
        encodeStatus: "none",
        encodeError: null,
        encodeProgress: null,
        createdByToken: creatorLabel(input.principal),
        updatedAt: now,
      })
      .where(eq(assets.id, asset.id))
      .returning();
    const changes = diffFields(
      { ...metadataOf(asset), media_type: asset.mediaType, md5: asset.md5, size: asset.size },
      { ...meta, media_type: updated.mediaType, md5: updated.md5, size: updated.size },
    );
    // The old bytes' stream, as the locked row held it: read here, a stream published just before is not missed.
    const replaced: ReplacedBytes = { storageKey: asset.storageKey, streamKey: asset.streamKey, encodeStatus: asset.encodeStatus };
    return { asset: updated, headVersionNumber: updated.nextVersionNumber, changes, wrote: true, replaced };
  };
  const result = await deps.db.transaction(async (tx) => finishWithin(tx, input.within, await write(tx)));
  // ---- after commit only: a rolled-back write must leave the stream it would have replaced
  const { replaced, ...written } = result;
  if (replaced) await deleteReplacedStream(storage, replaced, deps.clock(), `asset ${written.asset.id}`);
  return written;
}

async function checkpoint(deps: Deps, input: WriteVersionInput): Promise<VersionWriteResult> {
  const now = deps.clock();
  return deps.db.transaction(async (tx) => finishWithin(tx, input.within, await checkpointIn(tx, input, now)));
}

async function checkpointIn(tx: Tx, input: WriteVersionInput, now: Date): Promise<VersionWriteResult> {
  const asset = await lockAsset(tx, input.workspace, input.token);
  assertHeadMatches(asset, input.ifMatch);
  const changes = diffFields(metadataOf(asset), metadataOf(input.metadata));
  const comment = nonEmpty(input.comment);
  if (!hasChanges(changes) && comment === null) return { asset, headVersionNumber: asset.nextVersionNumber, changes, wrote: false };
  await snapshotHead(tx, asset, { comment, now });
  const [updated] = await tx
    .update(assets)
    .set({
      ...Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, v.new])),
      headSource: "EDIT",
      revertedFrom: null,
      createdByToken: creatorLabel(input.principal),
      updatedAt: now,
    })
    .where(eq(assets.id, asset.id))
    .returning();
  return { asset: updated, headVersionNumber: updated.nextVersionNumber, changes, wrote: true };
}
