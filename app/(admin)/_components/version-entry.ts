import { describeCreator } from "@/lib/client/creator";
import { headMedia } from "@/lib/client/format";
import type { Asset, Thumbnail, Version } from "@/lib/client/types";

/** A row of the timeline: the live head or a stored version, in one shape for display and compare. */
export type Entry = {
  number: number;
  isHead: boolean;
  source: string | null;
  comment: string | null;
  title: string | null;
  mediaType: string | null;
  size: number | null;
  md5: string | null;
  /** Who made it, for people: an email, a token's name, or a board access link. */
  author: string | null;
  at: string;
  revertable: boolean;
  thumbnails: Thumbnail[];
  /** The largest picture of this state, for side-by-side compare. */
  image: string | null;
};

const largest = (thumbs: Thumbnail[]) => [...thumbs].sort((a, b) => b.width - a.width)[0]?.url ?? null;

export function headEntry(asset: Asset): Entry {
  return {
    number: asset.head_version_number,
    isHead: true,
    source: null,
    comment: null,
    title: asset.title,
    mediaType: asset.media_type,
    size: asset.size,
    md5: asset.md5,
    author: null,
    at: asset.updated_at,
    revertable: false,
    // Head links stay the same across versions: keyed by content so the browser does not show a cached picture.
    thumbnails: asset.thumbnails.map((t) => ({ ...t, url: headMedia(t.url, asset.md5) })),
    image: asset.media_type.startsWith("image/") ? headMedia(asset.display_url, asset.md5) : largest(asset.thumbnails.map((t) => ({ ...t, url: headMedia(t.url, asset.md5) }))),
  };
}

export function versionEntry(v: Version, tokenNames: Record<string, string> = {}): Entry {
  return {
    number: v.version_number,
    isHead: false,
    source: v.source,
    comment: v.comment,
    title: v.title ?? null,
    mediaType: v.media_type ?? null,
    size: v.size ?? null,
    md5: v.md5 ?? null,
    author: describeCreator(v.created_by_token, tokenNames),
    at: v.created_at,
    revertable: v.revertable,
    thumbnails: v.thumbnails ?? [],
    image: largest(v.thumbnails ?? []),
  };
}
