import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { assetBoards, assets, boards, type Asset, type Workspace } from "../db/schema";
import { DomainError, notFound } from "../errors";
import { revertWindowDays, versioningAllowed } from "./plans";

export function assertVersioningAllowed(workspace: Workspace) {
  if (!versioningAllowed(workspace)) {
    throw new DomainError("versioning_not_enabled", "This workspace's plan does not allow version writes");
  }
}

/** Version writes need the asset on at least one active board (not trashed, archived or read-only). */
export async function assertBoardVersionWriteable(db: DbOrTx, assetId: number) {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(assetBoards)
    .innerJoin(boards, eq(boards.id, assetBoards.boardId))
    .where(and(eq(assetBoards.assetId, assetId), eq(boards.state, "active")));
  if (!row || Number(row.n) === 0) {
    throw new DomainError("version_write_forbidden", "The asset is on no active board (trashed, archived, read-only, or on no board)");
  }
}

export function revertWindowExceeded(workspace: Workspace) {
  return new DomainError("revert_window_exceeded", "The version is older than this plan's revert window", {
    revert_window_days: revertWindowDays(workspace),
  });
}

/**
 * Loads the asset row for a version write and locks it until the transaction ends. On Postgres the
 * row lock serialises concurrent writes to one asset, so version numbers stay contiguous (the
 * unique (asset, version_number) index is the backstop); on PGlite transactions are serial anyway.
 */
export async function lockAsset(tx: DbOrTx, workspace: Workspace, token: string): Promise<Asset> {
  const [asset] = await tx
    .select()
    .from(assets)
    .where(and(eq(assets.workspaceId, workspace.id), eq(assets.token, token)))
    .for("update");
  if (!asset) throw notFound("asset_not_found", "Asset");
  return asset;
}

/** Optional `If-Match: <head_version_number>`: a stale writer gets 412 instead of a surprise. */
export function assertHeadMatches(asset: Asset, ifMatch: number | undefined) {
  if (ifMatch !== undefined && ifMatch !== asset.nextVersionNumber) {
    throw new DomainError("precondition_failed", `head_version_number is ${asset.nextVersionNumber}, not ${ifMatch}`, {
      head_version_number: asset.nextVersionNumber,
    });
  }
}
