import Link from "next/link";
import { useId } from "react";
import { Badge } from "@/app/_components/ui/badge";
import { describeProgress } from "@/lib/client/encode-progress";
import { formatBytes, headMedia, mediaFamily } from "@/lib/client/format";
import type { Asset, Thumbnail } from "@/lib/client/types";
import { EncodeProgressBar } from "./encode-progress-bar";

/** srcset from the asset's thumbnails, so the browser picks the smallest that fills the card. */
export function thumbSrcSet(thumbs: Thumbnail[], md5: string) {
  const sorted = [...thumbs].sort((a, b) => a.width - b.width);
  const url = (t: Thumbnail) => headMedia(t.url, md5);
  return { src: sorted.length ? url(sorted[sorted.length - 1]) : undefined, srcSet: sorted.map((t) => `${url(t)} ${t.width}w`).join(", ") };
}

const ICON: Record<string, string> = { image: "Image", video: "Video", audio: "Audio", other: "File" };

export function AssetThumb({ asset, sizes, className = "" }: { asset: Pick<Asset, "thumbnails" | "media_type" | "title" | "md5">; sizes: string; className?: string }) {
  if (asset.thumbnails.length === 0) {
    return (
      <div className={`flex items-center justify-center bg-neutral-100 text-sm text-neutral-600 ${className}`}>
        <span>{ICON[mediaFamily(asset.media_type)]}</span>
      </div>
    );
  }
  const { src, srcSet } = thumbSrcSet(asset.thumbnails, asset.md5);
  // eslint-disable-next-line @next/next/no-img-element -- signed media URLs on this server; next/image would proxy them again
  return <img src={src} srcSet={srcSet} sizes={sizes} alt="" loading="lazy" decoding="async" className={`object-cover ${className}`} />;
}

function StatusBadge({ asset }: { asset: Asset }) {
  if (mediaFamily(asset.media_type) !== "video") return null;
  if (asset.stream_url) return <Badge tone="green">stream ready</Badge>;
  if (asset.encode_status === "failed") return <Badge tone="red">encode failed</Badge>;
  if (asset.encode_status === "queued" || asset.encode_status === "processing") return <Badge tone="amber">{asset.encode_status}</Badge>;
  return null;
}

export type CardSelect = {
  selected: boolean;
  /** A click on the checkbox, or a ctrl/cmd/shift-click on the card: which modifier decides toggle or range. */
  onPick: (how: "toggle" | "range") => void;
};

/**
 * One cell of the asset grid. Only the focused card's link is in the tab order (the grid moves
 * focus with the arrow keys); the checkbox and preview button are for pointers, and the keyboard
 * has Space and `v` for the same.
 */
export function AssetCard({ slug, asset, index, tabbable, select, onPreview, onFocusCard }: {
  slug: string; asset: Asset; index: number; tabbable: boolean; select?: CardSelect; onPreview?: () => void; onFocusCard: () => void;
}) {
  const metaId = useId();
  return (
    <div
      role="gridcell"
      aria-selected={select ? select.selected : undefined}
      data-testid="asset-card"
      className={`group relative h-full overflow-hidden rounded-lg border bg-white shadow-xs focus-within:ring-2 focus-within:ring-indigo-500 hover:shadow-md ${select?.selected ? "border-indigo-500 ring-1 ring-indigo-400" : "border-neutral-200"}`}
    >
      <div className="relative">
        <AssetThumb asset={asset} sizes="(min-width: 1280px) 16vw, (min-width: 1024px) 20vw, (min-width: 640px) 30vw, 45vw" className="aspect-square w-full" />
        {/* Over the thumbnail's foot, so the card keeps the height the grid lays it out with. */}
        {asset.encode_progress && !asset.stream_url ? (
          <div className="absolute inset-x-1 bottom-1 rounded bg-neutral-900/80 px-1.5 py-1 text-[11px] leading-tight text-neutral-100" title={describeProgress(asset.encode_progress)}>
            <EncodeProgressBar progress={asset.encode_progress} compact />
            <span className="mt-0.5 block truncate">{describeProgress(asset.encode_progress)}</span>
          </div>
        ) : null}
      </div>
      {/*
        The link holds only the title, so its name is the text a person sees on it (WCAG 2.5.3); its
        ::after covers the card, so a click anywhere on it opens the asset. The line under it is the
        link's description. No prefetch: scrolling a large board renders thousands of cards in
        turn, and each prefetch renders an asset page on the server.
      */}
      <Link
        href={`/w/${slug}/assets/${asset.token}`}
        prefetch={false}
        tabIndex={tabbable ? 0 : -1}
        data-asset-index={index}
        aria-label={asset.title}
        aria-describedby={metaId}
        title={asset.title}
        onFocus={onFocusCard}
        onClick={(e) => {
          if (!select || !(e.shiftKey || e.metaKey || e.ctrlKey)) return;
          e.preventDefault();
          select.onPick(e.shiftKey ? "range" : "toggle");
        }}
        className="block truncate px-2 pt-2 text-sm font-medium text-neutral-900 after:absolute after:inset-0 focus:outline-none"
      >
        {asset.title}
      </Link>
      <div id={metaId} className="mt-1 mb-2 flex h-5 items-center gap-1 overflow-hidden px-2 text-xs whitespace-nowrap text-neutral-500">
        <span className="truncate">{asset.media_type}</span>
        <span aria-hidden>·</span>
        <span>{formatBytes(asset.size)}</span>
        <StatusBadge asset={asset} />
      </div>

      {select ? (
        <input
          type="checkbox"
          tabIndex={-1}
          checked={select.selected}
          aria-label={`Select ${asset.title}`}
          onChange={() => {}}
          onClick={(e) => {
            e.stopPropagation();
            select.onPick(e.shiftKey ? "range" : "toggle");
          }}
          className={`absolute top-2 left-2 h-5 w-5 rounded border-neutral-300 shadow ${select.selected ? "" : "opacity-70 group-hover:opacity-100"}`}
        />
      ) : null}
      {onPreview ? (
        <button
          type="button"
          tabIndex={-1}
          onClick={onPreview}
          aria-label={`Preview ${asset.title}`}
          title="Preview (v)"
          className="absolute top-2 right-2 rounded bg-white/90 px-1.5 text-sm text-neutral-700 opacity-0 shadow group-hover:opacity-100 focus:opacity-100"
        >
          ⤢
        </button>
      ) : null}
    </div>
  );
}
