"use client";

import Link from "next/link";
import { useEffect, useRef, type KeyboardEvent } from "react";
import { headMedia, mediaFamily } from "@/lib/client/format";
import type { Asset } from "@/lib/client/types";
import { HlsPlayer } from "./hls-player";

function Media({ asset, playerToken }: { asset: Asset; playerToken: string | null }) {
  const family = mediaFamily(asset.media_type);
  const display = headMedia(asset.display_url, asset.md5);
  if (family === "image") {
    // eslint-disable-next-line @next/next/no-img-element -- a signed media URL of this server
    return <img src={display} alt={asset.title} data-testid="lightbox-image" className="mx-auto max-h-[75vh] w-auto max-w-full object-contain" />;
  }
  if (family === "video") {
    return asset.stream_url ? (
      // Keyed by asset so moving on tears the previous stream down.
      <HlsPlayer key={asset.token} src={asset.stream_url} token={playerToken} poster={asset.thumbnails.length ? display : undefined} title={asset.title} revision={asset.md5} storyboard={asset.storyboard_url} />
    ) : (
      <p className="py-16 text-center text-sm text-neutral-300">This video has no stream yet ({asset.encode_status}).</p>
    );
  }
  if (family === "audio") return <audio controls src={display} aria-label={`Audio: ${asset.title}`} className="w-full" />;
  return <p className="py-16 text-center text-sm text-neutral-300">No preview for {asset.media_type}.</p>;
}

/** The lightbox's own controls: light on dark, which the shared button variants are not. */
const NAV =
  "inline-flex shrink-0 items-center justify-center rounded-full bg-neutral-800 text-neutral-100 hover:bg-neutral-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-400 disabled:cursor-not-allowed disabled:opacity-30";

const FOCUSABLE = 'a[href], button:not([disabled]), input, video[controls], audio[controls], [tabindex]:not([tabindex="-1"])';

/**
 * The board's assets full size, one at a time, on the native modal <dialog> (showModal makes the
 * page behind it inert and Escape closes it). It is a dark stage in either colour scheme, as media
 * viewers are, and says so (`color-scheme: dark`) so the browser's own parts in it match. Tab also
 * wraps inside it, so focus never reaches the browser's own controls. Previous/next by buttons or
 * arrow keys; at the last loaded asset the next page is asked for, and "next" moves on once it has
 * arrived.
 */
export function AssetLightbox({ slug, assets, total, index, hasMore, loadMore, onIndex, onClose, playerToken }: {
  slug: string; assets: Asset[]; total: number; index: number; hasMore: boolean; loadMore: () => void; onIndex: (i: number) => void; onClose: (lastIndex: number) => void;
  /** A board access token for the stream (as the asset page's player uses); null plays the stream's signed link. */
  playerToken: string | null;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const waitingForMore = useRef(false);
  const asset = assets[index];

  useEffect(() => {
    const el = dialog.current;
    if (el && !el.open) el.showModal();
  }, []);

  // Near the end of what is loaded, fetch ahead; a "next" that ran out waits for the page.
  useEffect(() => {
    if (hasMore && index >= assets.length - 3) loadMore();
  }, [index, assets.length, hasMore, loadMore]);
  useEffect(() => {
    if (waitingForMore.current && index + 1 < assets.length) {
      waitingForMore.current = false;
      onIndex(index + 1);
    }
  }, [assets.length, index, onIndex]);

  const previous = () => index > 0 && onIndex(index - 1);
  const next = () => {
    if (index + 1 < assets.length) onIndex(index + 1);
    else if (hasMore) {
      waitingForMore.current = true;
      loadMore();
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDialogElement>) => {
    const target = e.target as HTMLElement;
    const inMedia = target instanceof HTMLMediaElement || target.tagName === "INPUT";
    if (e.key === "ArrowLeft" && !inMedia) {
      e.preventDefault();
      previous();
    } else if (e.key === "ArrowRight" && !inMedia) {
      e.preventDefault();
      next();
    } else if (e.key === "Tab") {
      const focusables = Array.from(dialog.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? []);
      const first = focusables[0];
      const last = focusables.at(-1);
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last?.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first?.focus();
      }
    }
  };

  return (
    <dialog
      ref={dialog}
      aria-label={`Preview: ${asset.title}`}
      onClose={() => onClose(index)}
      onKeyDown={onKeyDown}
      data-testid="lightbox"
      className="m-auto h-[min(92vh,60rem)] w-[min(96vw,90rem)] max-w-none rounded-lg bg-neutral-950 p-0 text-neutral-100 [color-scheme:dark] backdrop:bg-neutral-950/80"
    >
      <div className="flex h-full flex-col">
        <header className="flex items-center gap-3 border-b border-neutral-800 px-4 py-2">
          <h2 className="min-w-0 truncate font-semibold">{asset.title}</h2>
          <span className="text-sm text-neutral-400" aria-live="polite" data-testid="lightbox-position">
            {index + 1} of {total}
          </span>
          <Link href={`/w/${slug}/assets/${asset.token}`} className="ml-auto text-sm text-indigo-300 hover:underline">
            Open asset page
          </Link>
          <button type="button" className={`${NAV} h-8 w-8 text-base`} onClick={() => dialog.current?.close()} aria-label="Close preview" title="Close (Esc)">
            ✕
          </button>
        </header>
        <div className="flex min-h-0 flex-1 items-center gap-2 px-2">
          <button type="button" className={`${NAV} h-12 w-12 text-3xl`} onClick={previous} disabled={index === 0} aria-label="Previous asset" title="Previous (←)">
            ‹
          </button>
          <div className="min-w-0 flex-1">
            <Media asset={asset} playerToken={playerToken} />
          </div>
          <button type="button" className={`${NAV} h-12 w-12 text-3xl`} onClick={next} disabled={index + 1 >= assets.length && !hasMore} aria-label="Next asset" title="Next (→)">
            ›
          </button>
        </div>
      </div>
    </dialog>
  );
}
