import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * ffmpeg and ffprobe: the system's (Debian's, sound and current) when installed, else the binaries
 * shipped inside the @ffmpeg-installer / @ffprobe-installer packages (an older build: avoid
 * `-hls_playlist_type vod` with a master playlist and `name:` in var_stream_map with it).
 */
function resolveBinary(name: "ffmpeg" | "ffprobe"): string {
  for (const p of [`/usr/bin/${name}`, `/usr/local/bin/${name}`]) if (fs.existsSync(p)) return p;
  const pkg = name === "ffmpeg" ? "@ffmpeg-installer/ffmpeg" : "@ffprobe-installer/ffprobe";
  return (require(pkg) as { path: string }).path;
}

let cache: { ffmpeg: string; ffprobe: string } | null = null;
export function binaries() {
  cache ??= { ffmpeg: resolveBinary("ffmpeg"), ffprobe: resolveBinary("ffprobe") };
  return cache;
}

export function run(bin: string, args: string[], timeoutMs = 10 * 60_000): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(bin, args, { timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(Object.assign(new Error(`${bin.split("/").pop()} failed: ${stderr.split("\n").filter(Boolean).slice(-3).join(" | ") || err.message}`), { stderr }));
      else resolve({ stdout, stderr });
    });
  });
}

export type Probe = { width?: number; height?: number; durationSeconds?: number; hasAudio: boolean; hasVideo: boolean; rotation: number };

/** Dimensions (as displayed, after rotation), duration and streams of a media file. */
export async function probe(file: string): Promise<Probe> {
  const { stdout } = await run(binaries().ffprobe, ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", file], 60_000);
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
