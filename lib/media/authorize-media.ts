import { eq } from "drizzle-orm";
import { verifyBoardToken } from "../access-tokens/board-token-jwt";
import { visibleBoardIds } from "../boards";
import type { Deps } from "../deps";
import { assetBoards, type Asset, type Workspace } from "../db/schema";
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
  const visible = await visibleBoardIds(deps.db, workspace, { kind: "board", ...check.claims });
  const memberships = await deps.db.select({ boardId: assetBoards.boardId }).from(assetBoards).where(eq(assetBoards.assetId, asset.id));
  return memberships.some((m) => visible?.includes(m.boardId));
}
