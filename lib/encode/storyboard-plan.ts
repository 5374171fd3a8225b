import { STORYBOARD_SPRITE } from "../media/storyboard-files";

/** Tiles are this wide; their height follows the picture's shape, within TILE_MAX_HEIGHT. */
export const TILE_WIDTH = 160;
export const TILE_MAX_HEIGHT = 288;
/** Tiles per row of the sprite, and at most this many in all (one sprite of 10 × 10 tiles). */
export const SPRITE_COLUMNS = 10;
export const MAX_TILES = 100;

export type StoryboardPlan = { intervalSeconds: number; tileWidth: number; tileHeight: number; maxTiles: number };

const even = (n: number) => Math.max(2, 2 * Math.round(n / 2));

/**
 * One frame every `intervalSeconds`: every second of a clip of up to 30 s, every 2 s up to
 * 200 s, then as often as MAX_TILES tiles allow (10 min → every 6 s, 1 h → every 36 s), so the
 * sprite stays one image of bounded size whatever the length. Unknown length: every 2 s, at most
 * MAX_TILES tiles (the rest of the video has none).
 */
export function planStoryboard(source: { width: number; height: number; durationSeconds: number | null }): StoryboardPlan {
  const d = source.durationSeconds;
  const intervalSeconds = !d || d <= 0 ? 2 : d <= 30 ? 1 : Math.max(2, Math.ceil(d / MAX_TILES));
  const tileHeight = Math.min(TILE_MAX_HEIGHT, even((TILE_WIDTH * source.height) / source.width));
  return { intervalSeconds, tileWidth: TILE_WIDTH, tileHeight, maxTiles: MAX_TILES };
}

/** The sprite's grid for `tiles` tiles: up to SPRITE_COLUMNS a row. */
export function spriteGrid(tiles: number): { columns: number; rows: number } {
  const columns = Math.max(1, Math.min(SPRITE_COLUMNS, tiles));
  return { columns, rows: Math.max(1, Math.ceil(tiles / columns)) };
}

const stamp = (seconds: number) => {
  const ms = Math.round(seconds * 1000);
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${pad(h)}:${pad(m)}:${pad(s)}.${pad(ms % 1000, 3)}`;
};

/**
 * The WebVTT thumbnails track: tile n covers [n·interval, (n+1)·interval), the last one up to
 * the end of the video, so the cues cover the whole duration without gaps. Each cue names the
 * sprite by its bare file name (the media route adds the run's path and the authorisation).
 */
export function storyboardTrack(plan: StoryboardPlan, tiles: number, durationSeconds: number | null): string {
  const { columns } = spriteGrid(tiles);
  const lines = ["WEBVTT", ""];
  for (let n = 0; n < tiles; n++) {
    const start = n * plan.intervalSeconds;
    const last = n === tiles - 1;
    const end = last && durationSeconds && durationSeconds > start ? durationSeconds : start + plan.intervalSeconds;
    const x = (n % columns) * plan.tileWidth;
    const y = Math.floor(n / columns) * plan.tileHeight;
    lines.push(`${stamp(start)} --> ${stamp(end)}`, `${STORYBOARD_SPRITE}#xywh=${x},${y},${plan.tileWidth},${plan.tileHeight}`, "");
  }
  return lines.join("\n");
}
