import type { AssetVersion, Workspace } from "../db/schema";
import type { MediaLinker } from "../media/links";
import type { ThumbnailJson } from "../openapi/schemas/assets";
import type { VersionJson } from "../openapi/schemas/versions";
import { isGatedPlan, isRevertable } from "./plans";

/** Thumbnails past the window on a gated plan are served as previews at most this wide. */
export const PREVIEW_MAX_WIDTH = 320;

/** The wire shapes are the response schemas' (lib/openapi/schemas), so the reference cannot drift from these. */
export type VersionThumbnailJson = ThumbnailJson;
export type { VersionJson };

export type Surface = "rest" | "mcp";

/**
 * One presenter for REST and MCP. Past the revert window on a gated plan the original is withheld
 * (`primary_storage_id: null`); REST still shows watermarked previews clamped to 320 px, the
 * assistant surface shows no thumbnails at all.
 */
export function toVersionJson(v: AssetVersion, ctx: { surface: Surface; workspace: Workspace; now: Date; assetToken: string; link: MediaLinker }): VersionJson {
  const revertable = isRevertable(ctx.workspace, v.createdAt, ctx.now);
  const withheld = isGatedPlan(ctx.workspace) && !revertable;
  let thumbnails: VersionThumbnailJson[];
  if (withheld && ctx.surface === "mcp") thumbnails = [];
  else {
    thumbnails = v.thumbnails.map((t) => {
      const scale = withheld && t.width > PREVIEW_MAX_WIDTH ? PREVIEW_MAX_WIDTH / t.width : 1;
      return {
        size: t.size,
        url: ctx.link(ctx.assetToken, `thumb-${t.size}`, { version: v.versionNumber, preview: withheld }),
        width: Math.round(t.width * scale),
        height: Math.round(t.height * scale),
      };
    });
  }
  return {
    version_number: v.versionNumber,
    source: v.source,
    comment: v.comment,
    title: v.title,
    md5: v.md5,
    size: v.size,
    media_type: v.mediaType,
    revertable,
    created_at: v.createdAt.toISOString(),
    created_by_token: v.createdByToken,
    thumbnails,
    primary_storage_id: withheld ? null : v.storageKey,
  };
}
