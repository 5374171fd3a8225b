import { and, eq } from "drizzle-orm";
import { getAssetOrThrow } from "../assets/get-asset";
import { assetVersions, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { DomainError } from "../errors";
import type { DownloadLinkJson } from "../openapi/schemas/download-link";
import { getSecret } from "../secrets";
import { revertWindowExceeded } from "../versions/gates";
import { isGatedPlan, isRevertable } from "../versions/plans";
import { mediaPath, signedMediaUrl } from "./links";

/**
 * How long a download link works. It is minted for one download, so it lives as long as a
 * page-minted board access token (§11a: access handed to a person ends within an hour); a client
 * resuming a long transfer after that asks for a new one.
 */
export const DOWNLOAD_LINK_TTL_SECONDS = 3600;

/**
 * A signed link to the original bytes of the head, or of stored version N, for an API caller.
 * The head's link follows the head like every handed-out link (§14: its answers are `no-cache`
 * with an ETag); a stored version's link names that version, whose bytes never change. Past the
 * revert window on a gated plan a version's original is withheld, as in its version JSON.
 */
export async function downloadLink(deps: Deps, input: { workspace: Workspace; token: string; version?: number; baseUrl: string }): Promise<DownloadLinkJson> {
  const asset = await getAssetOrThrow(deps.db, input.workspace, input.token);
  const head = asset.nextVersionNumber;
  let content = { versionNumber: head, title: asset.title, mediaType: asset.mediaType, md5: asset.md5, size: asset.size };
  let path = mediaPath(asset.token, "original");
  if (input.version !== undefined && input.version !== head) {
    const [stored] = input.version < head ? await deps.db.select().from(assetVersions).where(and(eq(assetVersions.assetId, asset.id), eq(assetVersions.versionNumber, input.version))) : [];
    if (!stored) throw new DomainError("version_not_found", `No stored version ${input.version}; the head is ${head}`);
    if (isGatedPlan(input.workspace) && !isRevertable(input.workspace, stored.createdAt, deps.clock())) throw revertWindowExceeded(input.workspace);
    content = stored;
    path = mediaPath(asset.token, "original", { version: stored.versionNumber });
  }
  const expiresAt = Math.floor(deps.clock().getTime() / 1000) + DOWNLOAD_LINK_TTL_SECONDS;
  return {
    url: signedMediaUrl(input.baseUrl, await getSecret(deps.db, "media_url_key"), path, expiresAt),
    expires_at: new Date(expiresAt * 1000).toISOString(),
    version_number: content.versionNumber,
    title: content.title,
    media_type: content.mediaType,
    md5: content.md5,
    size: content.size,
  };
}
