import path from "node:path";
import { MAX_FPS, SEGMENT_SECONDS } from "../../lib/encode/ffmpeg-args";
import { INIT_NAME, PLAYLIST_NAME, SEGMENT_PATTERN } from "../../lib/encode/keys";
import type { Rung } from "../../lib/encode/ladder";
import type { SourceInfo } from "../../lib/encode/probe-source";

/**
 * The baseline of bench/encode: the ladder as Easel encoded it before the single pass, one ffmpeg
 * per rung, each decoding the whole source again. H.264 High `veryfast` at CRF 21 capped at the
 * rung's peak rate, AAC-LC stereo, fMP4 HLS with 4 s segments, keyframes forced on every boundary.
 */
export function perRungArgs(input: string, source: SourceInfo, rung: Rung, outDir: string): string[] {
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
    "-c:v", "libx264", "-preset", "veryfast", "-profile:v", "high",
    "-crf", "21", "-maxrate", `${rung.videoKbps}k`, "-bufsize", `${rung.videoKbps * 2}k`,
    "-g", String(gop), "-sc_threshold", "0", "-force_key_frames", `expr:gte(t,n_forced*${SEGMENT_SECONDS})`,
    "-f", "hls", "-hls_time", String(SEGMENT_SECONDS), "-hls_list_size", "0",
    "-hls_flags", "independent_segments", "-hls_segment_type", "fmp4",
    "-hls_fmp4_init_filename", INIT_NAME,
    "-hls_segment_filename", path.join(outDir, SEGMENT_PATTERN),
    path.join(outDir, PLAYLIST_NAME),
  ];
}
