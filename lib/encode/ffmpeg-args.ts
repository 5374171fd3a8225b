import path from "node:path";
import { encodeTimeoutMs } from "../sandbox/limits";
import { INIT_NAME, PLAYLIST_NAME, SEGMENT_PATTERN } from "./keys";
import type { Rung } from "./ladder";
import type { SourceInfo } from "./probe-source";

/** Segment length (seconds); every rendition has a keyframe exactly on each multiple of it. */
export const SEGMENT_SECONDS = 4;
export const MAX_FPS = 60;
/** ~2× faster than `medium` on two cores for a slightly larger file at the same quality. */
export const X264_PRESET = "veryfast";

/**
 * The ffmpeg command of one rendition: H.264 High (8-bit 4:2:0, what every HLS player decodes) at
 * a quality target capped at the rung's peak rate, AAC-LC stereo, fMP4 HLS with 4 s segments.
 * Keyframes are forced on every 4 s boundary by time and scene-cut keyframes are off, so the
 * renditions, encoded by separate commands, cut their segments at the same instants and a player
 * can switch between them at any segment. The same function feeds the benchmark's bare runs.
 */
export function renditionArgs(input: string, source: SourceInfo, rung: Rung, outDir: string): string[] {
  const fps = source.fps ? Math.min(source.fps, MAX_FPS) : 30;
  const gop = Math.max(1, Math.round(fps * SEGMENT_SECONDS));
  const filters = [`scale=${rung.width}:${rung.height}:flags=bicubic`, "setsar=1", "format=yuv420p", ...(source.fps && source.fps > MAX_FPS ? [`fps=${MAX_FPS}`] : [])];
  const audio =
    source.audioIndex === null
      ? ["-an"]
      : ["-map", `0:${source.audioIndex}`, "-c:a", "aac", "-b:a", `${rung.audioKbps}k`, "-ac", "2", "-ar", "48000"];
  return [
    "-nostdin", "-v", "error", "-y",
    "-i", input,
    "-map", `0:${source.videoIndex}`,
    ...audio,
    "-sn", "-dn",
    "-vf", filters.join(","),
    "-c:v", "libx264", "-preset", X264_PRESET, "-profile:v", "high",
    "-crf", "21", "-maxrate", `${rung.videoKbps}k`, "-bufsize", `${rung.videoKbps * 2}k`,
    "-g", String(gop), "-sc_threshold", "0", "-force_key_frames", `expr:gte(t,n_forced*${SEGMENT_SECONDS})`,
    "-f", "hls", "-hls_time", String(SEGMENT_SECONDS), "-hls_list_size", "0",
    "-hls_flags", "independent_segments", "-hls_segment_type", "fmp4",
    "-hls_fmp4_init_filename", INIT_NAME,
    "-hls_segment_filename", path.join(outDir, SEGMENT_PATTERN),
    path.join(outDir, PLAYLIST_NAME),
  ];
}

/** How long a rendition's ffmpeg may run: the media time limit per minute of source (lib/sandbox/limits.ts, docs/video.md). */
export function renditionTimeoutMs(source: SourceInfo): number {
  return encodeTimeoutMs(source.durationSeconds);
}
