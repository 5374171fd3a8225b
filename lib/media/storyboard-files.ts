import { streamDirOf, streamRunOf } from "./stream-files";

/**
 * The storyboard of an encode run (scrubbing previews), as the media route finds and serves it.
 * The encode writes two files into the run's folder, beside the master playlist:
 *   <folder>/storyboard.vtt   a WebVTT thumbnails track; each cue names a region of the sprite
 *                             (`storyboard.jpg#xywh=x,y,w,h`), relative to the track
 *   <folder>/storyboard.jpg   the sprite sheet: one tile per interval, row by row
 *
 * URLs (contract §14):
 *   /media/<asset>/storyboard                        the track of the head's stream: `no-cache`, ETag;
 *                                                    served with its cue URLs rewritten to the run's
 *   /media/<asset>/storyboard/<run>/storyboard.jpg   the sprite of that run: its bytes never change
 * A run that is not the published stream's names nothing (404), nor does a storyboard that is
 * not of the published run.
 */
export const STORYBOARD_TRACK = "storyboard.vtt";
export const STORYBOARD_SPRITE = "storyboard.jpg";
export const STORYBOARD_FILES = [STORYBOARD_TRACK, STORYBOARD_SPRITE] as const;

export const storyboardKeyOf = (encodeDir: string) => `${encodeDir}/${STORYBOARD_TRACK}`;

/** What a storyboard URL names: the track (rewritten per request) or the run's sprite. */
export type StoryboardFileTarget = { key: string; contentType: string; track: boolean; run: string };

/**
 * `/media/<asset>/storyboard[/<run>/storyboard.jpg]` → the stored file, or null: only the
 * storyboard of the published stream's run, only its two names.
 */
export function storyboardFileKey(streamKey: string | null, storyboardKey: string | null, rest: string[]): StoryboardFileTarget | null {
  if (!streamKey || !storyboardKey) return null;
  const dir = streamDirOf(streamKey);
  if (storyboardKey !== storyboardKeyOf(dir)) return null;
  const run = streamRunOf(streamKey);
  if (rest.length === 0) return { key: storyboardKey, contentType: "text/vtt; charset=utf-8", track: true, run };
  if (rest.length === 2 && rest[0] === run && rest[1] === STORYBOARD_SPRITE) return { key: `${dir}/${STORYBOARD_SPRITE}`, contentType: "image/jpeg", track: false, run };
  return null;
}

const CUE_IMAGE = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,63})(#xywh=\d{1,6},\d{1,6},\d{1,6},\d{1,6})$/;

/**
 * The stored track as served: each cue's image (a bare file name of the run's folder with its
 * `#xywh` fragment) becomes `<prefix><name>?<query>#xywh=…`, so a browser that fetched the track
 * with a signed link or `?token=` fetches the sprite with the same authorisation. The query goes
 * before the fragment (a fragment is never sent). Any other line is left as it is.
 */
export function authorizeTrack(text: string, prefix: string, query: string): string {
  return text
    .split("\n")
    .map((raw) => {
      const line = raw.replace(/\r$/, "");
      const m = CUE_IMAGE.exec(line.trim());
      if (!m) return line;
      return `${prefix}${m[1]}${query ? `?${query}` : ""}${m[2]}`;
    })
    .join("\n");
}
