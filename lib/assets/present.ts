import type { Asset, EncodeStatus } from "../db/schema";
import type { MediaLinker } from "../media/links";

export type ThumbnailJson = { size: "small" | "medium" | "large"; url: string; width: number; height: number };

export type AssetJson = {
  id: number;
  token: string;
  title: string;
  description: string | null;
  text: string | null;
  media_type: string;
  display_url: string;
  stream_url: string | null;
  created_at: string;
  updated_at: string;
  tags: string[];
  fields: Record<string, string>;
  primary_storage_id: string | null;
  boards: string[];
  encode_status: EncodeStatus;
  size: number;
  md5: string;
  head_version_number: number;
  thumbnails: ThumbnailJson[];
  width: number | null;
  height: number | null;
  duration: number | null;
};

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
    size: asset.size,
    md5: asset.md5,
    head_version_number: asset.nextVersionNumber,
    thumbnails: asset.thumbnails.map((t) => ({ size: t.size, url: link(asset.token, `thumb-${t.size}`), width: t.width, height: t.height })),
    width: asset.media.width ?? null,
    height: asset.media.height ?? null,
    duration: asset.media.durationSeconds ?? null,
  };
}
