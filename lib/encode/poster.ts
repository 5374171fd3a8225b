import fs from "node:fs";
import path from "node:path";
import { binaries, run } from "../media/ffmpeg";
import { SEGMENT_SECONDS } from "./ffmpeg-args";
import { whenMissing } from "./when-missing";

/** Segments looked at, from the first: past 32 s of black the video's own opening is all there is. */
export const POSTER_CANDIDATES = 8;
/**
 * A frame is black when nine pixels in ten have a luma at most this (8-bit; video black is 16,
 * full-range black 0): ffmpeg's blackframe filter judges by the same kind of threshold (32), a
 * little lower, and a fade's last dark frames should not make the poster either.
 */
export const BLACK_LUMA = 40;

/** The times looked at: the middle of each of the first segments of the stream, within the video. */
export function posterCandidates(durationSeconds: number | undefined): number[] {
  const half = SEGMENT_SECONDS / 2;
  if (durationSeconds !== undefined && durationSeconds > 0 && durationSeconds <= half) return [durationSeconds / 2];
  const times: number[] = [];
  for (let k = 0; k < POSTER_CANDIDATES; k++) {
    const at = k * SEGMENT_SECONDS + half;
    if (durationSeconds !== undefined && durationSeconds > 0 && at >= durationSeconds) break;
    times.push(at);
  }
  return times;
}

/** The 90th-percentile luma of the first frame in a signalstats print, or null. */
export function lumaHighOf(stats: string): number | null {
  const m = /lavfi\.signalstats\.YHIGH=(\d+(?:\.\d+)?)/.exec(stats);
  return m ? Number(m[1]) : null;
}

/**
 * The poster of a video: the frame in the middle of the first HLS segment (4 s) that is not
 * black, so a video that opens on black or fades in gets a picture of itself, and one that does
 * not gets a frame from its first seconds. Each candidate is one short ffmpeg child under the
 * media limits (seek to the time, decode one frame, measure it with signalstats, write it as a
 * PNG the thumbnails are rendered from); the search stops at the first frame that is not black.
 * If every candidate is black, the brightest is the poster. Null when no frame could be read.
 */
export async function choosePosterFrame(file: string, durationSeconds: number | undefined, dir: string): Promise<string | null> {
  let best: { file: string; luma: number } | null = null;
  for (const [i, at] of posterCandidates(durationSeconds).entries()) {
    const out = path.join(dir, `poster-${i}.png`);
    const statsFile = path.join(dir, `poster-${i}.txt`);
    // Filter arguments are separated by ':' and escaped with '\': the scratch folder has neither.
    await run(binaries().ffmpeg, ["-nostdin", "-v", "error", "-y", "-ss", at.toFixed(3), "-i", file, "-an", "-sn", "-dn", "-frames:v", "1", "-vf", `format=yuv420p,signalstats,metadata=mode=print:file=${statsFile}`, out]);
    const wrote = await fs.promises.stat(out).catch(whenMissing(null));
    if (!wrote?.size) break; // past the last frame (the container's duration was longer than the video)
    const luma = lumaHighOf(await fs.promises.readFile(statsFile, "utf8").catch(whenMissing(""))) ?? 0;
    if (luma > BLACK_LUMA) return out;
    if (!best || luma > best.luma) best = { file: out, luma };
  }
  return best?.file ?? null;
}
