import { eq } from "drizzle-orm";
import type { Deps } from "../deps";
import { assetBoards, assets, assetVersions, type Workspace } from "../db/schema";
import type { StorageDriver } from "../storage/types";
import { emitAssetChanged } from "./events";
import { getAssetOrThrow } from "./get-asset";

/**
 * Deletes an asset with its versions and board memberships, then its stored objects. The
 * asset_deleted event carries what the webhooks need (id, token, title, the boards it was on),
 * since the rows are gone by the time the fan-out runs. Objects that fail to delete are left as
 * unreachable orphans and logged; the deletion itself stands.
 */
export async function deleteAsset(deps: Deps, storage: StorageDriver, input: { workspace: Workspace; token: string }) {
  const asset = await getAssetOrThrow(deps.db, input.workspace, input.token);
  const { boardIds, keys } = await deps.db.transaction(async (tx) => {
    const memberships = await tx.select({ boardId: assetBoards.boardId }).from(assetBoards).where(eq(assetBoards.assetId, asset.id));
    const versions = await tx.select({ key: assetVersions.storageKey, thumbs: assetVersions.thumbnails }).from(assetVersions).where(eq(assetVersions.assetId, asset.id));
    await tx.delete(assets).where(eq(assets.id, asset.id));
    const all = new Set([asset.storageKey, ...asset.thumbnails.map((t) => t.key)]);
    for (const v of versions) [v.key, ...v.thumbs.map((t) => t.key)].forEach((k) => all.add(k));
    if (asset.streamKey) all.add(asset.streamKey);
    return { boardIds: memberships.map((m) => m.boardId), keys: [...all] };
  });
  await emitAssetChanged(deps, { asset, kind: "asset_deleted", snapshot: { id: asset.id, token: asset.token, title: asset.title, boardIds } });
  for (const key of keys) {
    await storage.delete(key).catch((err) => console.error(`[easel] could not delete object ${key} of deleted asset ${asset.id}`, err));
  }
}
