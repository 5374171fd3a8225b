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

/** Tuning of the single pass for few cores (docs/video.md, "The ladder"; measured by bench/encode). */
export type LadderTuning = { x264Params?: string; filterThreads?: number };
export const LADDER_TUNING: LadderTuning = {};

/**
 * The one ffmpeg command of a whole ladder: the source is decoded once, `split` into one branch
 * per rung, each scaled and encoded to its own fMP4 HLS folder (`<outDir>/<rung>/`): H.264 High
 * (8-bit 4:2:0, what every HLS player decodes) at a quality target capped at the rung's peak rate,
 * AAC-LC stereo, 4 s segments. Keyframes are forced on every 4 s boundary by time and scene-cut
 * keyframes are off, so every rung cuts its segments at the same instants (a player can switch
 * at any segment) and an encode can start again at any segment boundary.
 *
 * `startSegment` > 0 resumes an encode cut short: the source is read from that boundary (input
 * seeking decodes from the keyframe before it and drops what precedes it), output timestamps are
 * moved back to where they were (`-output_ts_offset`, and `frag_discont` so each fragment's
 * decode time carries them: without it the muxer starts its fragments at zero again), and segment
 * numbers continue from it. The segments then line up with the ones written before the cut and
 * play behind the first run's init segment.
 */
export function ladderArgs(input: string, source: SourceInfo, rungs: Rung[], outDir: string, startSegment = 0, tuning: LadderTuning = LADDER_TUNING): string[] {
  const fps = source.fps ? Math.min(source.fps, MAX_FPS) : 30;
  const gop = Math.max(1, Math.round(fps * SEGMENT_SECONDS));
  const startSeconds = startSegment * SEGMENT_SECONDS;
  const rate = source.fps && source.fps > MAX_FPS ? `fps=${MAX_FPS},` : "";
  const branches = rungs.map((_, i) => `[s${i}]`).join("");
  const graph = [
    `[0:${source.videoIndex}]${rate}split=${rungs.length}${branches}`,
    ...rungs.map((r, i) => `[s${i}]scale=${r.width}:${r.height}:flags=bicubic,setsar=1,format=yuv420p[v${i}]`),
  ].join(";");
  const outputs = rungs.flatMap((rung, i) => {
    const dir = path.join(outDir, rung.name);
    const audio =
      source.audioIndex === null
        ? ["-an"]
        : ["-map", `0:${source.audioIndex}`, "-c:a", "aac", "-b:a", `${rung.audioKbps}k`, "-ac", "2", "-ar", "48000"];
    const resume = startSegment > 0 ? ["-output_ts_offset", String(startSeconds), "-hls_segment_options", "movflags=+frag_discont"] : [];
    return [
      "-map", `[v${i}]`,
      ...audio,
      "-sn", "-dn",
      "-c:v", "libx264", "-preset", X264_PRESET, "-profile:v", "high",
      ...(tuning.x264Params ? ["-x264-params", tuning.x264Params] : []),
      "-crf", "21", "-maxrate", `${rung.videoKbps}k`, "-bufsize", `${rung.videoKbps * 2}k`,
      "-g", String(gop), "-sc_threshold", "0", "-force_key_frames", `expr:gte(t,n_forced*${SEGMENT_SECONDS})`,
      ...resume,
      "-f", "hls", "-hls_time", String(SEGMENT_SECONDS), "-hls_list_size", "0",
      "-hls_flags", "independent_segments+temp_file", "-hls_segment_type", "fmp4",
      "-hls_fmp4_init_filename", INIT_NAME,
      "-start_number", String(startSegment),
      "-hls_segment_filename", path.join(dir, SEGMENT_PATTERN),
      path.join(dir, PLAYLIST_NAME),
    ];
  });
  return [
    "-nostdin", "-v", "error", "-y",
    ...(startSeconds > 0 ? ["-ss", String(startSeconds)] : []),
    "-i", input,
    ...(tuning.filterThreads ? ["-filter_complex_threads", String(tuning.filterThreads)] : []),
    "-filter_complex", graph,
    ...outputs,
  ];
}

/**
 * How long the ladder's ffmpeg may run: the media time limit per minute of source for each rung
 * (lib/sandbox/limits.ts, docs/video.md): what the rungs had between them when each was a command
 * of its own, since the one pass does all their work.
 */
export function ladderTimeoutMs(source: SourceInfo, rungCount: number): number {
  return encodeTimeoutMs(source.durationSeconds) * Math.max(1, rungCount);
}
