import { eq } from "drizzle-orm";
import { assetBoards, assets, assetVersions, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { leaseKey } from "../encode/keys";
import { deleteStream } from "../encode/outputs";
import { transactionWithEvents } from "../jobs/outbox";
import { log } from "../log/logger.mjs";
import type { StorageDriver } from "../storage/types";
import { stageAssetChanged } from "./events";
import { getAssetOrThrow } from "./get-asset";

/**
 * Deletes an asset with its versions and board memberships, then its stored objects. The
 * asset_deleted event carries what the webhooks need (id, token, title, the boards it was on),
 * since the rows are gone by the time the fan-out runs; it is stored in the deleting transaction
 * (lib/jobs/outbox), once, by the delete that removed the row. Objects that fail to delete are left as
 * unreachable orphans and logged; the deletion itself stands.
 *
 * A video's stream goes with it: the master playlist and every rendition it lists, and the encode
 * lease beside the stream folders of the head's bytes and of every stored video version. No run
 * can use those leases again (a running encode finds the asset gone at its publish step, deletes
 * its own outputs and gives up the lease it may have written again meanwhile).
 */
export async function deleteAsset(deps: Deps, storage: StorageDriver, input: { workspace: Workspace; token: string }) {
  const asset = await getAssetOrThrow(deps.db, input.workspace, input.token);
  const { keys, streamKey } = await transactionWithEvents(deps, async (tx, stage) => {
    const memberships = await tx.select({ boardId: assetBoards.boardId }).from(assetBoards).where(eq(assetBoards.assetId, asset.id));
    const versions = await tx
      .select({ key: assetVersions.storageKey, thumbs: assetVersions.thumbnails, mediaType: assetVersions.mediaType })
      .from(assetVersions)
      .where(eq(assetVersions.assetId, asset.id));
    // The row as deleted, not as read before: an encode may have published a stream in between.
    const [deleted] = await tx.delete(assets).where(eq(assets.id, asset.id)).returning();
    const head = deleted ?? asset;
    const all = new Set([head.storageKey, ...head.thumbnails.map((t) => t.key)]);
    for (const v of versions) [v.key, ...v.thumbs.map((t) => t.key)].forEach((k) => all.add(k));
    // Leases exist only for bytes an encode has claimed: the head's once its status left `none`, a version's if it is a video.
    const claimed = [...(head.encodeStatus !== "none" ? [head.storageKey] : []), ...versions.filter((v) => v.mediaType.startsWith("video/")).map((v) => v.key)];
    claimed.forEach((k) => all.add(leaseKey(k)));
    if (deleted) {
      const boardIds = memberships.map((m) => m.boardId);
      await stageAssetChanged(stage, deps.clock, { asset: deleted, kind: "asset_deleted", snapshot: { id: deleted.id, token: deleted.token, title: deleted.title, boardIds } });
    }
    return { keys: [...all], streamKey: head.streamKey };
  });
  if (streamKey) {
    await deleteStream(storage, streamKey).catch((err) =>
      log().warn({ component: "assets", asset_id: asset.id, stream_key: streamKey, err }, "could not delete the stream of a deleted asset; its files stay behind, unreachable"),
    );
  }
  for (const key of keys) {
    await storage.delete(key).catch((err) => log().warn({ component: "assets", asset_id: asset.id, key, err }, "could not delete an object of a deleted asset; it stays behind, unreachable"));
  }
}
