import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { prepared } from "../db/prepared";
import { assets, type Asset, type Workspace } from "../db/schema";
import { notFound } from "../errors";
import type { MediaLinker } from "../media/links";
import { boardTokensByAsset } from "./board-tokens";
import { toAssetJson, type AssetJson } from "./present";

export async function findAsset(db: DbOrTx, workspaceId: number, token: string): Promise<Asset | null> {
  const byToken = prepared(db, "asset_by_token", (d) =>
    d
      .select()
      .from(assets)
      .where(and(eq(assets.workspaceId, sql.placeholder("workspaceId")), eq(assets.token, sql.placeholder("token"))))
      .limit(1)
      .prepare("asset_by_token"),
  );
  const [row] = await byToken.execute({ workspaceId, token });
  return row ?? null;
}

/** An asset of the workspace, or 404 asset_not_found (also for another tenant's token). */
export async function getAssetOrThrow(db: DbOrTx, workspace: Workspace, token: string): Promise<Asset> {
  const asset = await findAsset(db, workspace.id, token);
  if (!asset) throw notFound("asset_not_found", "Asset");
  return asset;
}

export async function presentAsset(db: DbOrTx, asset: Asset, link: MediaLinker): Promise<AssetJson> {
  const tokens = await boardTokensByAsset(db, [asset.id]);
  return toAssetJson(asset, tokens.get(asset.id) ?? [], link);
}
