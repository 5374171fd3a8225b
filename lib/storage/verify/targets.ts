import { and, asc, desc, eq, gt, inArray } from "drizzle-orm";
import type { Db } from "../../db";
import { assets, assetVersions, type Thumbnail } from "../../db/schema";

/** Whose file it is, as `storage verify` names it: `(asset <token> v<n>)`, the head being v<head_version_number>. */
export type Ref = { assetId: number; token: string; version: number };

/**
 * One stored file to check. `recorded` is what the database recorded for it (an original's size
 * and md5, on the asset or its version); derived files (thumbnails, stream files) have none, and
 * are checked against what the store itself recorded.
 */
export type Target = { key: string; ref: Ref; recorded: { size: number; md5: string } | null; kind: "original" | "thumbnail" | "stream" };

/** An asset's files: each key once (versions share keys with the head and each other). The stream is listed from its playlists. */
export type AssetFiles = { ref: Ref; streamKey: string | null; targets: Target[] };

type HeadRow = Pick<typeof assets.$inferSelect, "id" | "token" | "storageKey" | "size" | "md5" | "thumbnails" | "streamKey" | "nextVersionNumber">;
type VersionRow = Pick<typeof assetVersions.$inferSelect, "assetId" | "versionNumber" | "storageKey" | "size" | "md5" | "thumbnails">;

const headColumns = { id: assets.id, token: assets.token, storageKey: assets.storageKey, size: assets.size, md5: assets.md5, thumbnails: assets.thumbnails, streamKey: assets.streamKey, nextVersionNumber: assets.nextVersionNumber };
const versionColumns = { assetId: assetVersions.assetId, versionNumber: assetVersions.versionNumber, storageKey: assetVersions.storageKey, size: assetVersions.size, md5: assetVersions.md5, thumbnails: assetVersions.thumbnails };

/** The head first, then versions newest first: a shared key is named by its newest holder. */
function filesOf(head: HeadRow, versions: VersionRow[]): AssetFiles {
  const byKey = new Map<string, Target>();
  const add = (version: number, row: { storageKey: string; size: number; md5: string; thumbnails: Thumbnail[] }) => {
    const ref = { assetId: head.id, token: head.token, version };
    if (!byKey.has(row.storageKey)) byKey.set(row.storageKey, { key: row.storageKey, ref, recorded: { size: row.size, md5: row.md5 }, kind: "original" });
    for (const t of row.thumbnails ?? []) if (!byKey.has(t.key)) byKey.set(t.key, { key: t.key, ref, recorded: null, kind: "thumbnail" });
  };
  add(head.nextVersionNumber, head);
  for (const v of versions) add(v.versionNumber, v);
  return { ref: { assetId: head.id, token: head.token, version: head.nextVersionNumber }, streamKey: head.streamKey, targets: [...byKey.values()] };
}

async function withVersions(db: Db, heads: HeadRow[]): Promise<AssetFiles[]> {
  if (!heads.length) return [];
  const rows = await db
    .select(versionColumns)
    .from(assetVersions)
    .where(inArray(assetVersions.assetId, heads.map((h) => h.id)))
    .orderBy(asc(assetVersions.assetId), desc(assetVersions.versionNumber));
  const byAsset = new Map<number, VersionRow[]>();
  for (const r of rows) byAsset.set(r.assetId, [...(byAsset.get(r.assetId) ?? []), r]);
  return heads.map((h) => filesOf(h, byAsset.get(h.id) ?? []));
}

/** Every asset of a workspace with its files, a page of assets at a time (memory stays bounded by the page). */
export async function* assetFilesOf(db: Db, workspaceId: number, pageSize = 100): AsyncGenerator<AssetFiles> {
  let after = 0;
  for (;;) {
    const heads = await db
      .select(headColumns)
      .from(assets)
      .where(and(eq(assets.workspaceId, workspaceId), gt(assets.id, after)))
      .orderBy(asc(assets.id))
      .limit(pageSize);
    yield* await withVersions(db, heads);
    if (heads.length < pageSize) return;
    after = heads[heads.length - 1].id;
  }
}

/** One asset's files as the database holds them now (null once the asset is deleted). */
export async function currentFilesOf(db: Db, assetId: number): Promise<AssetFiles | null> {
  const [head] = await db.select(headColumns).from(assets).where(eq(assets.id, assetId));
  return head ? (await withVersions(db, [head]))[0] : null;
}
