import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { prepared } from "../db/prepared";
import { assets, type Asset, type Workspace } from "../db/schema";
import { notFound } from "../errors";
import type { MediaLinker } from "../media/links";
import { boardTokensByAsset, boardTokensOfAssetRow } from "./board-tokens";
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

/** getAssetOrThrow with the asset's board tokens, read by the same statement (the single-asset GET). */
export async function getAssetWithBoardTokens(db: DbOrTx, workspace: Workspace, token: string): Promise<{ asset: Asset; boardTokens: string[] }> {
  const byToken = prepared(db, "asset_with_board_tokens", (d) =>
    d
      .select({ asset: assets, boardTokens: boardTokensOfAssetRow() })
      .from(assets)
      .where(and(eq(assets.workspaceId, sql.placeholder("workspaceId")), eq(assets.token, sql.placeholder("token"))))
      .limit(1)
      .prepare("asset_with_board_tokens"),
  );
  const [row] = await byToken.execute({ workspaceId: workspace.id, token });
  if (!row) throw notFound("asset_not_found", "Asset");
  return row;
}

export async function presentAsset(db: DbOrTx, asset: Asset, link: MediaLinker): Promise<AssetJson> {
  const tokens = await boardTokensByAsset(db, [asset.id]);
  return toAssetJson(asset, tokens.get(asset.id) ?? [], link);
}
