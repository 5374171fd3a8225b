"use client";

import { useEffect, useRef, useState } from "react";
import { Alert } from "@/app/_components/ui/alert";

/** The stream's master playlist read with the page's board access token instead of its signature. */
export function masterWithToken(src: string, token: string): string {
  const u = new URL(src, window.location.href);
  u.searchParams.delete("sig");
  u.searchParams.delete("exp");
  u.searchParams.set("token", token);
  return u.toString();
}

/**
 * A child playlist or segment URL with the token added, unless it already carries a credential
 * (the server propagates `?token=` into the playlists it serves, or signs the URLs itself).
 */
export function withBoardToken(url: string, token: string): string {
  const u = new URL(url, window.location.href);
  if (u.searchParams.has("token") || u.searchParams.has("sig")) return url;
  u.searchParams.set("token", token);
  return u.toString();
}

/**
 * HLS playback: hls.js over Media Source Extensions where the browser has them, the browser's own
 * HLS (Safari, iOS) where it does not. Every request carries the board access token minted for
 * this page, so no API token ever reaches the browser. The grey ring frames the black player on any
 * dark surface: a dark page, and the lightbox, which is dark in either colour scheme.
 */
export function HlsPlayer({ src, token, poster, title }: { src: string; token: string | null; poster?: string; title: string }) {
  const video = useRef<HTMLVideoElement>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const el = video.current;
    if (!el) return;
    const source = token ? masterWithToken(src, token) : src;
    let cancelled = false;
    let destroy = () => {};
    setError(null);
    void import("hls.js").then(({ default: Hls }) => {
      if (cancelled) return;
      if (!Hls.isSupported()) {
        if (el.canPlayType("application/vnd.apple.mpegurl")) el.src = source;
        else setError("This browser cannot play HLS video.");
        return;
      }
      const hls = new Hls({
        xhrSetup: token
          ? (xhr, url) => {
              xhr.open("GET", withBoardToken(url, token), true);
            }
          : undefined,
      });
      let recoveries = 0;
      hls.on(Hls.Events.ERROR, (_event, data) => {
        if (!data.fatal) return;
        if (recoveries++ < 2 && data.type === Hls.ErrorTypes.NETWORK_ERROR) return hls.startLoad();
        if (recoveries++ < 2 && data.type === Hls.ErrorTypes.MEDIA_ERROR) return hls.recoverMediaError();
        setError(`The stream cannot be played (${data.details}).`);
        hls.destroy();
      });
      hls.loadSource(source);
      hls.attachMedia(el);
      destroy = () => hls.destroy();
    });
    return () => {
      cancelled = true;
      destroy();
    };
  }, [src, token]);

  return (
    <figure className="space-y-2">
      <video ref={video} controls playsInline preload="metadata" poster={poster} aria-label={`Video: ${title}`} data-testid="hls-player" className="max-h-[70vh] w-full rounded-md bg-black ring-1 ring-neutral-700" />
      {error ? <Alert>{error}</Alert> : null}
    </figure>
  );
}
