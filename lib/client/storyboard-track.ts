/**
 * The storyboard's WebVTT thumbnails track as the player reads it (lib/media/storyboard-files.ts
 * writes it). Written here rather than taken from a library: a thumbnails track is a handful of
 * lines per cue (timing, then an image URL with an `#xywh` fragment), the libraries that read
 * WebVTT are built for captions (styling, regions, cue settings) and weigh far more than this,
 * and the track comes from Easel itself.
 */
export type StoryboardCue = { start: number; end: number; url: string; x: number; y: number; w: number; h: number };

/** At most this many cues are read (Easel writes at most 100). */
const MAX_CUES = 2000;

const TIMING = /^((?:\d+:)?\d{2}:\d{2}\.\d{3})\s+-->\s+((?:\d+:)?\d{2}:\d{2}\.\d{3})/;

function seconds(stamp: string): number {
  return stamp.split(":").reduce((total, part) => total * 60 + Number(part), 0);
}

/**
 * The cues of a track, their image URLs resolved against the track's own URL; cues whose image
 * has no `#xywh=x,y,w,h` region are skipped. An empty list for anything that is not WebVTT.
 */
export function parseStoryboardTrack(text: string, trackUrl: string): StoryboardCue[] {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (!lines[0]?.startsWith("WEBVTT")) return [];
  const cues: StoryboardCue[] = [];
  for (let i = 1; i < lines.length && cues.length < MAX_CUES; i++) {
    const timing = TIMING.exec(lines[i]);
    if (!timing) continue;
    const payload = (lines[i + 1] ?? "").trim();
    const hash = payload.lastIndexOf("#xywh=");
    if (hash < 0) continue;
    const [x, y, w, h] = payload.slice(hash + "#xywh=".length).split(",").map(Number);
    if (![x, y, w, h].every((n) => Number.isFinite(n) && n >= 0) || !w || !h) continue;
    // A cue whose image is no URL (the track is the server's, but read as untrusted) is left out.
    const ref = payload.slice(0, hash);
    if (!URL.canParse(ref, trackUrl)) continue;
    cues.push({ start: seconds(timing[1]), end: seconds(timing[2]), url: new URL(ref, trackUrl).toString(), x, y, w, h });
  }
  return cues.sort((a, b) => a.start - b.start);
}

/** The cue showing at `time` (the last one starting at or before it), or null before the first. */
export function cueAt(cues: StoryboardCue[], time: number): StoryboardCue | null {
  let lo = 0;
  let hi = cues.length - 1;
  let found: StoryboardCue | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cues[mid].start <= time) {
      found = cues[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** A media time as a player shows it: 0:07, 12:05, 1:02:03. */
export function formatMediaTime(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(Number.isFinite(totalSeconds) ? totalSeconds : 0));
  const h = Math.floor(s / 3600);
  const m = Math.floor(s / 60) % 60;
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}
