import { eq } from "drizzle-orm";
import type { Db } from "../db";
import { assets, workspaces, type Asset, type Workspace } from "../db/schema";

export async function loadAssetAndWorkspace(db: Db, assetId: number): Promise<{ asset: Asset; workspace: Workspace } | null> {
  const [row] = await db.select({ asset: assets, workspace: workspaces }).from(assets).innerJoin(workspaces, eq(workspaces.id, assets.workspaceId)).where(eq(assets.id, assetId));
  return row ?? null;
}
