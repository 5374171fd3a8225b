import { binaries, run } from "../media/ffmpeg";
import { EncodeFailure } from "./errors";

/** What an encode needs to know about its source. Width and height are as displayed. */
export type SourceInfo = {
  videoIndex: number;
  audioIndex: number | null;
  width: number;
  height: number;
  durationSeconds: number | null;
  fps: number | null;
};

type Stream = {
  index: number;
  codec_type?: string;
  width?: number;
  height?: number;
  sample_aspect_ratio?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  tags?: { rotate?: string };
  side_data_list?: { rotation?: number }[];
  disposition?: { attached_pic?: number };
};

const ratio = (s: string | undefined) => {
  const [a, b] = (s ?? "").split(/[:/]/).map(Number);
  return a > 0 && b > 0 ? a / b : null;
};

/**
 * Probes the source for the encode: the first real video stream (cover art is not one), the
 * first audio stream, the display size (rotation applied, non-square pixels stretched out: ffmpeg
 * rotates while decoding and the ladder resizes to square pixels), duration and frame rate.
 */
export async function probeSource(file: string): Promise<SourceInfo> {
  let info: { streams?: Stream[]; format?: { duration?: string } };
  try {
    const { stdout } = await run(binaries().ffprobe, ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", file]);
    info = JSON.parse(stdout);
  } catch (err) {
    throw new EncodeFailure("unreadable_source", (err as Error).message);
  }
  const streams = info.streams ?? [];
  const video = streams.find((s) => s.codec_type === "video" && !s.disposition?.attached_pic && s.width && s.height);
  if (!video) throw new EncodeFailure("no_video_stream", streams.length ? "the file has no video stream" : "the file has no streams");
  const audio = streams.find((s) => s.codec_type === "audio");
  const rotation = Math.abs(Number(video.tags?.rotate ?? video.side_data_list?.find((d) => d.rotation !== undefined)?.rotation ?? 0)) % 180;
  const sar = ratio(video.sample_aspect_ratio) ?? 1;
  const storedWidth = Math.round(video.width! * sar);
  const [width, height] = rotation === 90 ? [video.height!, storedWidth] : [storedWidth, video.height!];
  const duration = Number(info.format?.duration);
  const fps = ratio(video.avg_frame_rate) ?? ratio(video.r_frame_rate);
  return {
    videoIndex: video.index,
    audioIndex: audio ? audio.index : null,
    width,
    height,
    durationSeconds: Number.isFinite(duration) && duration > 0 ? duration : null,
    fps: fps && fps < 1000 ? fps : null,
  };
}
