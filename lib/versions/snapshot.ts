import { eq, sql } from "drizzle-orm";
import type { Tx } from "../db";
import { assets, assetVersions, type Asset } from "../db/schema";

/**
 * Stores the current head as version number `head_version_number` and moves the counter on, in
 * the caller's transaction (which holds the asset's row lock). The snapshot keeps the head's
 * content, metadata, origin (`source`) and creator; `comment` is the note of the request that
 * replaces it. Returns the stored number.
 */
export async function snapshotHead(tx: Tx, asset: Asset, input: { comment: string | null; now: Date }): Promise<number> {
  const [{ taken }] = await tx
    .update(assets)
    .set({ nextVersionNumber: sql`${assets.nextVersionNumber} + 1` })
    .where(eq(assets.id, asset.id))
    .returning({ taken: sql<number>`${assets.nextVersionNumber} - 1` });
  await tx.insert(assetVersions).values({
    assetId: asset.id,
    versionNumber: Number(taken),
    source: asset.headSource,
    comment: input.comment,
    title: asset.title,
    description: asset.description,
    text: asset.text,
    mediaType: asset.mediaType,
    size: asset.size,
    md5: asset.md5,
    storageKey: asset.storageKey,
    thumbnails: asset.thumbnails,
    media: asset.media,
    createdByToken: asset.createdByToken,
    createdAt: input.now,
  });
  return Number(taken);
}
