import { and, eq } from "drizzle-orm";
import { diffFields, type Changes } from "../assets/changes";
import { stageAssetChanged } from "../assets/events";
import { getAssetOrThrow } from "../assets/get-asset";
import { creatorLabel, type Principal } from "../auth/principal";
import type { Tx } from "../db";
import { assets, assetVersions, type Asset, type AssetVersion, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { deleteReplacedStream, type ReplacedBytes } from "../encode/outputs";
import { DomainError } from "../errors";
import { transactionWithEvents } from "../jobs/outbox";
import type { StorageDriver } from "../storage/types";
import { assertBoardVersionWriteable, assertHeadMatches, assertVersioningAllowed, lockAsset, revertWindowExceeded } from "./gates";
import { isRevertable } from "./plans";
import { snapshotHead } from "./snapshot";

export type VersionWriteResult = { asset: Asset; headVersionNumber: number; changes: Changes; wrote: boolean };

/**
 * Runs last inside a version write's transaction, whatever it wrote, and answers the result as it
 * stands then: the caller's own writes of the same request (unversioned fields) and the events of
 * all of it, committed together.
 */
export type WithinWrite = (tx: Tx, result: VersionWriteResult) => Promise<VersionWriteResult>;

/** `result` after the caller's `within`, keeping what the write added to it (e.g. the replaced bytes). */
export async function finishWithin<R extends VersionWriteResult>(tx: Tx, within: WithinWrite | undefined, result: R): Promise<R> {
  return within ? { ...result, ...(await within(tx, result)) } : result;
}

const versionNotFound = (n: number) => new DomainError("version_not_found", `No stored version ${n}`);

async function findVersion(deps: Deps, assetId: number, n: number): Promise<AssetVersion | null> {
  const [row] = await deps.db.select().from(assetVersions).where(and(eq(assetVersions.assetId, assetId), eq(assetVersions.versionNumber, n)));
  return row ?? null;
}

/** The head's fields that a revert replaces, for the `changes` of asset_updated. */
const contentOf = (a: Pick<Asset, "title" | "description" | "text" | "mediaType" | "md5" | "size">) => ({
  title: a.title,
  description: a.description,
  text: a.text,
  media_type: a.mediaType,
  md5: a.md5,
  size: a.size,
});

/**
 * Restores stored version N: the head is snapshotted (carrying `comment`), then takes N's bytes
 * and metadata; the head number moves forward by one. Reverting to the live head, or again to the
 * version the last revert restored (a retry), changes nothing.
 */
export async function revertAsset(
  deps: Deps,
  storage: StorageDriver,
  input: { workspace: Workspace; principal: Principal; token: string; versionNumber: number; comment?: string; ifMatch?: number },
): Promise<VersionWriteResult> {
  const { workspace } = input;
  // ---- access, plan and board gates (read-only, outside the transaction)
  const current = await getAssetOrThrow(deps.db, workspace, input.token);
  assertVersioningAllowed(workspace);
  await assertBoardVersionWriteable(deps.db, current.id);
  assertHeadMatches(current, input.ifMatch);
  const n = input.versionNumber;
  if (n === current.nextVersionNumber || current.revertedFrom === n) return { asset: current, headVersionNumber: current.nextVersionNumber, changes: {}, wrote: false };
  if (n > current.nextVersionNumber) throw versionNotFound(n);
  const target = await findVersion(deps, current.id, n);
  if (!target) throw versionNotFound(n);
  if (!isRevertable(workspace, target.createdAt, deps.clock())) throw revertWindowExceeded(workspace);
  // ---- the stored bytes must still exist (checked before taking the row lock: no I/O under it)
  if (!(await storage.head(target.storageKey))) throw new DomainError("version_blob_missing", `The stored file of version ${n} is no longer in storage`);

  // ---- snapshot the head, then apply version N's content
  const now = deps.clock();
  const outcome = await transactionWithEvents(deps, async (tx, stage): Promise<VersionWriteResult & { replaced?: ReplacedBytes }> => {
    const asset = await lockAsset(tx, workspace, input.token);
    assertHeadMatches(asset, input.ifMatch);
    if (asset.revertedFrom === n) return { asset, headVersionNumber: asset.nextVersionNumber, changes: {}, wrote: false };
    await snapshotHead(tx, asset, { comment: input.comment?.trim() ? input.comment : null, now });
    const sameBytes = asset.md5 === target.md5 && asset.storageKey === target.storageKey;
    const [updated] = await tx
      .update(assets)
      .set({
        title: target.title,
        description: target.description,
        text: target.text,
        mediaType: target.mediaType,
        size: target.size,
        md5: target.md5,
        storageKey: target.storageKey,
        thumbnails: target.thumbnails,
        media: target.media,
        headSource: "REVERT",
        revertedFrom: n,
        createdByToken: creatorLabel(input.principal),
        updatedAt: now,
        ...(sameBytes ? {} : { streamKey: null, storyboardKey: null, encodeStatus: "none" as const, encodeError: null, encodeProgress: null }),
      })
      .where(eq(assets.id, asset.id))
      .returning();
    // Other bytes: the old bytes' stream, as the locked row held it, is deleted once this commits.
    const replaced: ReplacedBytes | undefined = sameBytes ? undefined : { storageKey: asset.storageKey, streamKey: asset.streamKey, encodeStatus: asset.encodeStatus };
    const changes = diffFields(contentOf(asset), contentOf(updated));
    // ---- the webhooks' event, stored with the revert
    await stageAssetChanged(stage, deps.clock, { asset: updated, kind: "asset_updated", changes });
    return { asset: updated, headVersionNumber: updated.nextVersionNumber, changes, wrote: true, replaced };
  });
  // ---- after commit (and the event's hand-off): delete the replaced stream
  const { replaced, ...result } = outcome;
  if (replaced) await deleteReplacedStream(storage, replaced, deps.clock(), `asset ${result.asset.id}`);
  return result;
}
