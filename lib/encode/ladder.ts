import { EncodeFailure } from "./errors";

/** One rendition of the HLS ladder. `name` is its folder and its label (the short side, e.g. "720p"). */
export type Rung = { name: string; width: number; height: number; videoKbps: number; audioKbps: number };

/** Standard rungs by short side. Sources above the largest are brought down to it. */
export const STANDARD_RUNGS = [240, 360, 720, 1080] as const;
export const MAX_SHORT_SIDE = 1080;

const even = (n: number) => Math.max(2, 2 * Math.round(n / 2));

/** Peak video bit rate of a rung: 5 Mb/s at 1080, scaled by (short side / 1080)^1.5, in steps of 50 kb/s. */
export function videoKbpsFor(shortSide: number): number {
  return Math.max(150, Math.round((5000 * Math.pow(shortSide / MAX_SHORT_SIDE, 1.5)) / 50) * 50);
}

/**
 * The ladder for a source of the given display size (after rotation and pixel aspect). Rungs are
 * measured on the short side, so a portrait phone video gets the same ladder as its landscape
 * twin instead of a "1080p" rung 608 pixels wide. Never upscaled: the top rung is the source's own
 * short side (made even, at most 1080); standard rungs below it join unless within 15 % of it.
 */
export function planLadder(display: { width: number; height: number }): Rung[] {
  const { width, height } = display;
  const short = Math.min(width, height);
  const long = Math.max(width, height);
  if (!(short >= 16)) throw new EncodeFailure("unsupported_dimensions", `a ${width}x${height} picture is too small to stream`);
  const top = Math.min(MAX_SHORT_SIDE, short - (short % 2));
  const sides = [...STANDARD_RUNGS.filter((s) => s < top * 0.85), top];
  return sides.map((s) => {
    const other = even((long * s) / short);
    const landscape = width >= height;
    return {
      name: `${s}p`,
      width: landscape ? other : s,
      height: landscape ? s : other,
      videoKbps: videoKbpsFor(s),
      audioKbps: s <= 240 ? 96 : 128,
    };
  });
}
