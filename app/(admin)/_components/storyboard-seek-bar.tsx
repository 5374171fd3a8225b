"use client";

import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent, type RefObject } from "react";
import { cueAt, formatMediaTime, parseStoryboardTrack, type StoryboardCue } from "@/lib/client/storyboard-track";

/** Arrow keys move this far; Page Up/Down a tenth of the video. */
const STEP_SECONDS = 5;

/** Where on the bar a preview is shown, and for which time. */
type Preview = { time: number; x: number; width: number };

const clamp = (n: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, n));

/** The video's length and position, kept in step with its events. */
function usePlayhead(video: RefObject<HTMLVideoElement | null>) {
  const [state, setState] = useState({ duration: 0, current: 0 });
  useEffect(() => {
    const el = video.current;
    if (!el) return;
    const update = () => setState({ duration: Number.isFinite(el.duration) ? el.duration : 0, current: el.currentTime });
    const events = ["timeupdate", "durationchange", "loadedmetadata", "seeking", "emptied"] as const;
    for (const e of events) el.addEventListener(e, update);
    update();
    return () => {
      for (const e of events) el.removeEventListener(e, update);
    };
  }, [video]);
  return state;
}

/** The cues of the storyboard track (none while loading, or if it cannot be read: the bar still seeks). */
function useStoryboard(track: string | null): StoryboardCue[] {
  const [loaded, setLoaded] = useState<{ track: string; cues: StoryboardCue[] } | null>(null);
  useEffect(() => {
    if (!track) return;
    const abort = new AbortController();
    fetch(track, { signal: abort.signal })
      .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`the storyboard answered ${r.status}`))))
      .then((text) => {
        const read = parseStoryboardTrack(text, track);
        setLoaded({ track, cues: read });
        // The sprite is one image: fetched now, so the first preview shows at once.
        for (const url of new Set(read.map((c) => c.url))) new Image().src = url;
      })
      .catch((err: unknown) => {
        if (!abort.signal.aborted) console.warn("no scrubbing previews: the storyboard could not be read", err);
      });
    return () => abort.abort();
  }, [track]);
  return loaded && loaded.track === track ? loaded.cues : [];
}

/**
 * The player's seek bar, with the storyboard's frame for the time under the pointer: hovering
 * with a mouse, pressing and dragging with a finger or a mouse (the video seeks on release), or
 * from the keyboard (arrow keys, Page Up/Down, Home, End seek and show the frame of the time they
 * went to while the bar has focus). A slider for assistive technology, its value read as times.
 */
export function StoryboardSeekBar({ video, track, onSeek }: { video: RefObject<HTMLVideoElement | null>; track: string | null; onSeek: (time: number) => void }) {
  const { duration, current } = usePlayhead(video);
  const cues = useStoryboard(track);
  const bar = useRef<HTMLDivElement>(null);
  const [preview, setPreview] = useState<Preview | null>(null);
  const dragging = useRef(false);

  const at = (time: number): Preview => {
    const width = bar.current?.getBoundingClientRect().width ?? 0;
    return { time, x: duration ? (time / duration) * width : 0, width };
  };
  const fromPointer = (e: PointerEvent<HTMLDivElement>): Preview => {
    const rect = e.currentTarget.getBoundingClientRect();
    const x = clamp(e.clientX - rect.left, 0, rect.width);
    return { time: rect.width ? (x / rect.width) * duration : 0, x, width: rect.width };
  };
  const seek = (time: number) => {
    if (duration) onSeek(clamp(time, 0, duration));
  };

  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (!duration || e.button > 0) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    dragging.current = true;
    setPreview(fromPointer(e));
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    if (!duration) return;
    if (dragging.current || e.pointerType === "mouse") setPreview(fromPointer(e));
  };
  const onPointerUp = (e: PointerEvent<HTMLDivElement>) => {
    if (!dragging.current) return;
    dragging.current = false;
    seek(fromPointer(e).time);
    if (e.pointerType !== "mouse") setPreview(null);
  };
  const onPointerCancel = () => {
    dragging.current = false;
    setPreview(null);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!duration) return;
    const from = preview?.time ?? current;
    const to: Record<string, number> = {
      ArrowRight: from + STEP_SECONDS,
      ArrowUp: from + STEP_SECONDS,
      ArrowLeft: from - STEP_SECONDS,
      ArrowDown: from - STEP_SECONDS,
      PageUp: from + duration / 10,
      PageDown: from - duration / 10,
      Home: 0,
      End: duration,
    };
    // Escape first hides a shown preview; with none shown it goes on to the page (back to the board).
    if (e.key === "Escape" && preview) {
      e.preventDefault();
      e.stopPropagation();
      return setPreview(null);
    }
    if (!(e.key in to)) return;
    // The bar's keys are its own: not also the lightbox's next and previous asset.
    e.preventDefault();
    e.stopPropagation();
    const time = clamp(to[e.key], 0, duration);
    seek(time);
    setPreview(at(time));
  };

  const shown = preview ? cueAt(cues, preview.time) : null;
  const boxWidth = shown?.w ?? 64;
  const left = preview ? clamp(preview.x - boxWidth / 2, 0, Math.max(0, preview.width - boxWidth)) : 0;
  const played = duration ? clamp((current / duration) * 100, 0, 100) : 0;
  return (
    <div className="relative px-1">
      {preview ? (
        <div data-testid="storyboard-preview" data-time={preview.time.toFixed(2)} aria-hidden className="pointer-events-none absolute bottom-full z-10 mb-1 overflow-hidden rounded-md bg-black shadow-lg ring-1 ring-white/60" style={{ left, width: boxWidth }}>
          {shown ? (
            <div
              data-testid="storyboard-frame"
              style={{ width: shown.w, height: shown.h, backgroundImage: `url("${shown.url}")`, backgroundPosition: `-${shown.x}px -${shown.y}px`, backgroundRepeat: "no-repeat" }}
            />
          ) : null}
          <span className="block py-0.5 text-center text-xs font-medium text-white tabular-nums">{formatMediaTime(preview.time)}</span>
        </div>
      ) : null}
      <div
        ref={bar}
        role="slider"
        tabIndex={0}
        aria-label="Seek"
        aria-valuemin={0}
        aria-valuemax={Math.round(duration)}
        aria-valuenow={Math.round(preview?.time ?? current)}
        aria-valuetext={`${formatMediaTime(preview?.time ?? current)} of ${formatMediaTime(duration)}`}
        aria-disabled={!duration || undefined}
        data-testid="seek-bar"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerCancel}
        onPointerLeave={() => !dragging.current && setPreview(null)}
        onKeyDown={onKeyDown}
        onBlur={() => setPreview(null)}
        className="group flex h-6 cursor-pointer touch-none items-center rounded outline-none select-none focus-visible:ring-2 focus-visible:ring-indigo-500"
      >
        <div className="relative h-1.5 w-full rounded-full bg-neutral-300 dark:bg-neutral-600">
          <div className="absolute inset-y-0 left-0 rounded-full bg-indigo-500" style={{ width: `${played}%` }} />
          <div className="absolute top-1/2 h-3.5 w-3.5 -translate-x-1/2 -translate-y-1/2 rounded-full bg-indigo-600 shadow ring-2 ring-white" style={{ left: `${played}%` }} />
        </div>
      </div>
    </div>
  );
}
