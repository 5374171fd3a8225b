import { eq } from "drizzle-orm";
import type { Deps } from "../deps";
import { assets, type Asset, type Workspace } from "../db/schema";
import { diffFields, hasChanges, type Changes } from "./changes";
import { getAssetOrThrow } from "./get-asset";

export type AssetFields = { title?: string; description?: string; text?: string; tags?: string[]; fields?: Record<string, string> };

/** A plain metadata update (no version): title, description, text, tags, custom fields. */
export async function updateAsset(deps: Deps, input: { workspace: Workspace; token: string; fields: AssetFields }): Promise<{ asset: Asset; changes: Changes }> {
  const asset = await getAssetOrThrow(deps.db, input.workspace, input.token);
  const changes = diffFields(
    { title: asset.title, description: asset.description, text: asset.text, tags: asset.tags, fields: asset.fields },
    input.fields,
  );
  if (!hasChanges(changes)) return { asset, changes };
  const set = Object.fromEntries(Object.entries(changes).map(([k, v]) => [k, v.new]));
  // Content fields edited in place no longer equal the version the last revert restored.
  const contentEdited = "title" in changes || "description" in changes || "text" in changes;
  const [updated] = await deps.db
    .update(assets)
    .set({ ...set, ...(contentEdited ? { revertedFrom: null } : {}), updatedAt: deps.clock() })
    .where(eq(assets.id, asset.id))
    .returning();
  return { asset: updated, changes };
}
