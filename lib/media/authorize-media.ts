import { and, eq } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { verifyBoardToken } from "../access-tokens/board-token-jwt";
import { inSubtreeOf } from "../boards/tree";
import type { Deps } from "../deps";
import { assetBoards, boards, type Asset, type Workspace } from "../db/schema";
import { getSecret } from "../secrets";
import { mediaPath, verifyMediaSignature } from "./links";
import type { MediaRequest } from "./resolve-media";

/** A signed link for exactly this path, or `?token=` with a board access token whose boards hold the asset. */
export async function authorizeMedia(deps: Deps, url: URL, req: MediaRequest, asset: Asset, workspace: Workspace): Promise<boolean> {
  const sig = url.searchParams.get("sig");
  const exp = Number(url.searchParams.get("exp"));
  if (sig) {
    const path = mediaPath(req.assetToken, req.kind, { version: req.version ?? undefined, preview: req.preview });
    return verifyMediaSignature(await getSecret(deps.db, "media_url_key"), path, exp, sig, deps.clock().getTime());
  }
  const token = url.searchParams.get("token");
  if (!token) return false;
  const check = await verifyBoardToken(await getSecret(deps.db, "board_token_key"), token, deps.clock());
  if (!check.ok || check.claims.workspaceId !== workspace.id) return false;
  return boardTokenReaches(deps, workspace.id, check.claims.boardToken, asset.id);
}

const held = alias(boards, "media_held_on");
const root = alias(boards, "media_token_root");

/**
 * Is the asset on the token's board or a board under it? One query that only visits the asset's
 * own boards (a primary-key lookup each, compared with the root's path), so its cost does not
 * depend on the size or depth of the tree: HLS players run it for every segment.
 */
async function boardTokenReaches(deps: Deps, workspaceId: number, rootToken: string, assetId: number): Promise<boolean> {
  const rows = await deps.db
    .select({ boardId: held.id })
    .from(assetBoards)
    .innerJoin(held, eq(held.id, assetBoards.boardId))
    .innerJoin(root, and(eq(root.workspaceId, workspaceId), eq(root.token, rootToken)))
    .where(and(eq(assetBoards.assetId, assetId), inSubtreeOf(held, root)))
    .limit(1);
  return rows.length > 0;
}
