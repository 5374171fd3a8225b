import type { Asset } from "../db/schema";
import type { MediaLinker } from "../media/links";
import type { AssetJson, ThumbnailJson } from "../openapi/schemas/assets";
import { encodeErrorJson } from "./encode-error";

/** The wire shapes are the response schemas' (lib/openapi/schemas), so the reference cannot drift from these. */
export type { AssetJson, ThumbnailJson };

export function toAssetJson(asset: Asset, boardTokens: string[], link: MediaLinker): AssetJson {
  return {
    id: asset.id,
    token: asset.token,
    title: asset.title,
    description: asset.description,
    text: asset.text,
    media_type: asset.mediaType,
    display_url: link(asset.token, "display"),
    stream_url: asset.streamKey && asset.encodeStatus === "ready" ? link(asset.token, "stream") : null,
    created_at: asset.createdAt.toISOString(),
    updated_at: asset.updatedAt.toISOString(),
    tags: asset.tags,
    fields: asset.fields,
    primary_storage_id: asset.storageKey,
    boards: boardTokens,
    encode_status: asset.encodeStatus,
    encode_error: encodeErrorJson(asset),
    encode_progress:
      asset.encodeStatus === "processing" && asset.encodeProgress
        ? { fraction: asset.encodeProgress.fraction, rung: asset.encodeProgress.rung, eta_seconds: asset.encodeProgress.etaSeconds }
        : null,
    storyboard_url: asset.storyboardKey && asset.encodeStatus === "ready" ? link(asset.token, "storyboard") : null,
    processing_error: asset.processingError ?? null,
    size: asset.size,
    md5: asset.md5,
    head_version_number: asset.nextVersionNumber,
    thumbnails: asset.thumbnails.map((t) => ({ size: t.size, url: link(asset.token, `thumb-${t.size}`), width: t.width, height: t.height })),
    width: asset.media.width ?? null,
    height: asset.media.height ?? null,
    duration: asset.media.durationSeconds ?? null,
  };
}
