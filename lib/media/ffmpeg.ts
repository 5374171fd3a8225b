import { env } from "../env";
import { log } from "../log/logger.mjs";
import { runLimited } from "../sandbox/run-limited";
import { findMediaTool, toolVersion, TOOL_ENV, type MediaTool, type ToolName } from "./media-tools";

/**
 * ffmpeg and ffprobe: EASEL_FFMPEG_PATH / EASEL_FFPROBE_PATH when set, else the first on PATH
 * (Debian's, sound and current), else the binaries shipped inside the @ffmpeg-installer /
 * @ffprobe-installer packages (an older build: avoid `-hls_playlist_type vod` with a master
 * playlist and `name:` in var_stream_map with it). Resolved once per process; a configured path
 * that is missing throws MediaToolError here (the server checks both at start: checkMediaTools).
 */
const cache = new Map<ToolName, MediaTool>();
function tool(name: ToolName): MediaTool {
  let found = cache.get(name);
  if (!found) {
    found = findMediaTool(name, { configured: env()[TOOL_ENV[name]], pathEnv: process.env.PATH });
    cache.set(name, found);
  }
  return found;
}

export function binaries(): { ffmpeg: string; ffprobe: string } {
  return { ffmpeg: tool("ffmpeg").path, ffprobe: tool("ffprobe").path };
}

/**
 * At server start: finds both binaries, runs each with `-version`, and logs once which are used.
 * Throws MediaToolError when a configured path is missing or does not run (the start stops:
 * lib/boot.ts). Without configuration, a binary that is not found or does not run is logged as an
 * error and the server starts all the same: images and documents are processed without it, video
 * and audio processing fail (and log why) until it is fixed.
 */
export async function checkMediaTools(): Promise<void> {
  const found: Partial<Record<ToolName, { path: string | null; source: string | null; version: string | null }>> = {};
  for (const name of ["ffmpeg", "ffprobe"] as const) {
    let located: MediaTool | null = null;
    try {
      located = tool(name);
      found[name] = { path: located.path, source: located.source, version: await toolVersion(located) };
    } catch (err) {
      if (env()[TOOL_ENV[name]]) throw err;
      log().error({ component: "media", tool: name, path: located?.path ?? null, err }, `${name} is not usable: video and audio processing will fail (install it or set ${TOOL_ENV[name]})`);
      found[name] = { path: located?.path ?? null, source: located?.source ?? null, version: null };
    }
  }
  const said = (name: ToolName) => `${name} ${found[name]?.version ?? "(not usable)"} (${found[name]?.path ?? "not found"})`;
  log().info({ component: "media", ...found }, `media tools: ${said("ffmpeg")}, ${said("ffprobe")}`);
  if (found.ffmpeg?.source === "npm" || found.ffprobe?.source === "npm") {
    log().warn({ component: "media" }, "using the ffmpeg/ffprobe build of the npm packages (old; some HLS options fail with it): install ffmpeg or set EASEL_FFMPEG_PATH and EASEL_FFPROBE_PATH");
  }
}

/**
 * Runs ffmpeg or ffprobe on an uploaded file, in a child under the media limits (time and memory,
 * lib/sandbox/run-limited.ts): MediaLimitError over a limit, MediaChildError when it fails.
 */
export function run(bin: string, args: string[], timeoutMs?: number): Promise<{ stdout: string; stderr: string }> {
  return runLimited(bin, args, { what: bin.split("/").pop() ?? bin, timeoutMs });
}

export type Probe = { width?: number; height?: number; durationSeconds?: number; hasAudio: boolean; hasVideo: boolean; rotation: number };

/** Dimensions (as displayed, after rotation), duration and streams of a media file. */
export async function probe(file: string): Promise<Probe> {
  const { stdout } = await run(binaries().ffprobe, ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", file]);
  const info = JSON.parse(stdout) as {
    streams?: { codec_type?: string; width?: number; height?: number; tags?: { rotate?: string }; side_data_list?: { rotation?: number }[]; disposition?: { attached_pic?: number } }[];
    format?: { duration?: string };
  };
  const video = info.streams?.find((s) => s.codec_type === "video" && !s.disposition?.attached_pic);
  const rotation = Math.abs(Number(video?.tags?.rotate ?? video?.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? 0)) % 180;
  const swap = rotation === 90;
  const duration = Number(info.format?.duration);
  return {
    width: video?.width ? (swap ? video.height : video.width) : undefined,
    height: video?.height ? (swap ? video.width : video.height) : undefined,
    durationSeconds: Number.isFinite(duration) ? duration : undefined,
    hasAudio: Boolean(info.streams?.some((s) => s.codec_type === "audio")),
    hasVideo: Boolean(video),
    rotation,
  };
}
