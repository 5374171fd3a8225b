import Link from "next/link";
import { Badge } from "@/app/_components/ui/badge";
import { formatBytes, headMedia, mediaFamily } from "@/lib/client/format";
import type { Asset, Thumbnail } from "@/lib/client/types";

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
      <div className={`flex items-center justify-center bg-neutral-100 text-sm text-neutral-500 ${className}`}>
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

export function AssetCard({ slug, asset }: { slug: string; asset: Asset }) {
  return (
    <li className="group overflow-hidden rounded-lg border border-neutral-200 bg-white shadow-xs focus-within:ring-2 focus-within:ring-indigo-500 hover:shadow-md">
      <Link href={`/w/${slug}/assets/${asset.token}`} className="block focus:outline-none">
        <AssetThumb asset={asset} sizes="(min-width: 1280px) 16vw, (min-width: 1024px) 20vw, (min-width: 640px) 30vw, 45vw" className="aspect-square w-full" />
        <div className="space-y-1 p-2">
          <p className="truncate text-sm font-medium text-neutral-900" title={asset.title}>
            {asset.title}
          </p>
          <div className="flex flex-wrap items-center gap-1 text-xs text-neutral-500">
            <span>{asset.media_type}</span>
            <span aria-hidden>·</span>
            <span>{formatBytes(asset.size)}</span>
            <StatusBadge asset={asset} />
          </div>
        </div>
      </Link>
    </li>
  );
}
