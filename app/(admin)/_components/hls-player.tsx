"use client";

import { useEffect, useRef, useState, type RefObject } from "react";
import { Alert } from "@/app/_components/ui/alert";
import { StoryboardSeekBar } from "./storyboard-seek-bar";

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

type Hls = import("hls.js").default;
type HlsEvents = typeof import("hls.js").default.Events;

/** Where a viewer was in the stream a player showed before, to carry over to the next one. */
export type Playback = { at: number; playing: boolean };

const playbackOf = (el: HTMLVideoElement): Playback => ({ at: el.currentTime, playing: !el.paused && !el.ended });

/**
 * Once the stream being loaded knows its length: back to `from`'s position when the new stream is
 * long enough to have it, playing again if it was playing.
 */
function resumeWhenLoaded(hls: Hls, events: HlsEvents, el: HTMLVideoElement, from: Playback) {
  hls.once(events.LEVEL_LOADED, (_event, data) => {
    if (from.at > 0 && from.at < data.details.totalduration) el.currentTime = from.at;
    if (from.playing) el.play().catch((err: unknown) => console.warn("the head's stream did not resume playing", err));
  });
}

/**
 * HLS playback: hls.js over Media Source Extensions where the browser has them, the browser's own
 * HLS (Safari, iOS) where it does not. Every request carries the board access token minted for
 * this page, so no API token ever reaches the browser. The grey ring frames the black player on any
 * dark surface: a dark page, and the lightbox, which is dark in either colour scheme.
 *
 * `revision` names the content the stream shows (the head's md5): the stream link may stay the
 * same across version writes and reverts, so a new revision, like a new link, reloads the stream
 * in place.
 */
export function HlsPlayer({ src, token, poster, title, revision = "", handoff, storyboard = null }: {
  src: string;
  token: string | null;
  poster?: string;
  title: string;
  revision?: string;
  /**
   * Carries the position from one player of an asset to the next: a new version's stream is
   * encoded before it plays, so the player leaves meanwhile; it records where the viewer was, and
   * the next one starts there.
   */
  handoff?: RefObject<Playback | null>;
  /** The asset's `storyboard_url`: a seek bar with scrubbing previews under the video (storyboard-seek-bar.tsx). */
  storyboard?: string | null;
}) {
  const video = useRef<HTMLVideoElement>(null);
  const [error, setError] = useState<string | null>(null);
  // Bumped to build the player again: the browser's own HLS, or hls.js after a fatal error.
  const [generation, setGeneration] = useState(0);
  const source = token ? masterWithToken(src, token) : src;
  // Read with the same board token as the stream; the track's sprite URLs come back carrying it.
  const track = storyboard ? (token ? masterWithToken(storyboard, token) : storyboard) : null;
  const key = `${source}#${revision}`;
  // What the player should show, read by its setup once hls.js has loaded; `claimed` is what it loads or has loaded.
  const wanted = useRef({ source, key });
  const claimed = useRef<string | null>(null);
  const live = useRef<{ hls: Hls; events: HlsEvents } | null>(null);
  useEffect(() => {
    wanted.current = { source, key };
  });
  useEffect(() => {
    const el = video.current;
    return () => {
      if (el && handoff) handoff.current = playbackOf(el);
    };
  }, [handoff]);

  useEffect(() => {
    const el = video.current;
    if (!el) return;
    let cancelled = false;
    let destroy = () => {};
    claimed.current = wanted.current.key;
    setError(null);
    void import("hls.js").then(({ default: Hls }) => {
      if (cancelled) return;
      const first = wanted.current;
      claimed.current = first.key;
      if (!Hls.isSupported()) {
        if (el.canPlayType("application/vnd.apple.mpegurl")) el.src = first.source;
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
        live.current = null;
        hls.destroy();
      });
      const from = handoff?.current;
      if (from) resumeWhenLoaded(hls, Hls.Events, el, from);
      hls.loadSource(first.source);
      hls.attachMedia(el);
      live.current = { hls, events: Hls.Events };
      destroy = () => {
        live.current = null;
        hls.destroy();
      };
    });
    return () => {
      cancelled = true;
      destroy();
    };
  }, [token, generation, handoff]);

  // The head moved (a version write or revert, here or anywhere): the same player loads the new stream.
  useEffect(() => {
    const el = video.current;
    if (!el || claimed.current === key) return;
    claimed.current = key;
    const p = live.current;
    if (!p) return setGeneration((g) => g + 1);
    setError(null);
    resumeWhenLoaded(p.hls, p.events, el, playbackOf(el));
    p.hls.loadSource(source);
  }, [source, key]);

  const seekTo = (time: number) => {
    const el = video.current;
    if (el) el.currentTime = time;
  };

  return (
    <figure className="space-y-2">
      {/*
        With a storyboard, the seek bar under the video is the one with previews: the native
        timeline is hidden where the browser lets a page do so (Chromium, Safari) except in full
        screen, where the bar below is not shown.
      */}
      <video
        ref={video}
        controls
        playsInline
        preload="metadata"
        poster={poster}
        aria-label={`Video: ${title}`}
        data-testid="hls-player"
        data-revision={revision}
        className={`max-h-[70vh] w-full rounded-md bg-black ring-1 ring-neutral-700 ${track ? "[&:not(:fullscreen)::-webkit-media-controls-timeline]:hidden" : ""}`}
      />
      {track ? <StoryboardSeekBar video={video} track={track} onSeek={seekTo} /> : null}
      {error ? <Alert>{error}</Alert> : null}
    </figure>
  );
}
