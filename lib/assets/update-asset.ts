import { eq } from "drizzle-orm";
import type { DbOrTx, Tx } from "../db";
import { assets, type Asset, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { diffFields, hasChanges, type Changes } from "./changes";
import { getAssetOrThrow } from "./get-asset";

export type AssetFields = { title?: string; description?: string; text?: string; tags?: string[]; fields?: Record<string, string> };

const fieldsOf = (a: Asset) => ({ title: a.title, description: a.description, text: a.text, tags: a.tags, fields: a.fields });

/** Writes the fields that differ from `asset` (as read by the caller) and answers the row and its changes. */
async function writeFields(db: DbOrTx, asset: Asset, changes: Changes, now: Date): Promise<Asset> {
  const set = Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, v.new]));
  // Content fields edited in place no longer equal the version the last revert restored.
  const contentEdited = "title" in changes || "description" in changes || "text" in changes;
  const [updated] = await db
    .update(assets)
    .set({ ...set, ...(contentEdited ? { revertedFrom: null } : {}), updatedAt: now })
    .where(eq(assets.id, asset.id))
    .returning();
  return updated;
}

/**
 * Inside another write's transaction: applies unversioned fields (tags, custom fields) to the
 * asset, read again under a row lock so the changes are against what the transaction sees.
 */
export async function applyAssetFields(tx: Tx, assetId: number, fields: AssetFields, now: Date): Promise<{ asset: Asset; changes: Changes }> {
  const [asset] = await tx.select().from(assets).where(eq(assets.id, assetId)).for("update");
  const changes = diffFields(fieldsOf(asset), fields);
  if (!hasChanges(changes)) return { asset, changes };
  return { asset: await writeFields(tx, asset, changes, now), changes };
}

/**
 * A plain metadata update (no version): title, description, text, tags, custom fields. `within`
 * runs in the update's transaction when something changed (the caller stores its events there).
 */
export async function updateAsset(
  deps: Deps,
  input: { workspace: Workspace; token: string; fields: AssetFields; within?: (tx: Tx, result: { asset: Asset; changes: Changes }) => Promise<void> },
): Promise<{ asset: Asset; changes: Changes }> {
  const asset = await getAssetOrThrow(deps.db, input.workspace, input.token);
  const changes = diffFields(fieldsOf(asset), input.fields);
  if (!hasChanges(changes)) return { asset, changes };
  const now = deps.clock();
  return deps.db.transaction(async (tx) => {
    const result = { asset: await writeFields(tx, asset, changes, now), changes };
    await input.within?.(tx, result);
    return result;
  });
}
