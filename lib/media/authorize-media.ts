import { verifyBoardAccess } from "../auth/verify-board-access";
import { assetVisibleTo } from "../boards/visibility";
import type { Asset, Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { getSecret } from "../secrets";
import { mediaPath, verifyMediaSignature } from "./links";
import type { MediaRequest } from "./resolve-media";

/**
 * A signed link for exactly this path, or `?token=` with a board access token of the asset's
 * workspace that may see the asset (checked as /v1 checks it: lib/auth/verify-board-access.ts,
 * lib/boards/visibility.ts). No cookie is read: the URL alone authorises.
 * Answers when that authorisation ends (epoch ms: the link's expiry or the token's), or null when
 * the URL authorises nothing; a cache may keep an answer no longer than that.
 */
export async function authorizeMedia(deps: Deps, url: URL, req: MediaRequest, asset: Asset, workspace: Workspace): Promise<number | null> {
  const sig = url.searchParams.get("sig");
  const exp = Number(url.searchParams.get("exp"));
  if (sig) {
    const path = mediaPath(req.assetToken, req.kind, { version: req.version ?? undefined, preview: req.preview });
    return verifyMediaSignature(await getSecret(deps.db, "media_url_key"), path, exp, sig, deps.clock().getTime()) ? exp * 1000 : null;
  }
  const token = url.searchParams.get("token");
  if (!token) return null;
  const access = await verifyBoardAccess(deps, token, { workspaceId: workspace.id });
  return access.ok && (await assetVisibleTo(deps.db, access.principal, asset)) ? access.principal.expiresAt.getTime() : null;
}
