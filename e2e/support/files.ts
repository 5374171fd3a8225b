import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import sharp from "sharp";

const MiB = 1024 * 1024;

/** A PNG with a colour of its own, so versions differ visibly and in md5. */
export async function writePng(file: string, rgb: [number, number, number], width = 960, height = 640) {
  const noise = crypto.randomBytes(width * height * 3);
  for (let i = 0; i < noise.length; i += 3) {
    noise[i] = (rgb[0] + (noise[i] % 24)) & 255;
    noise[i + 1] = (rgb[1] + (noise[i + 1] % 24)) & 255;
    noise[i + 2] = (rgb[2] + (noise[i + 2] % 24)) & 255;
  }
  await sharp(noise, { raw: { width, height, channels: 3 } }).png().toFile(file);
  return file;
}

/**
 * A flat-colour picture (sky, a sun, hills) for pages that end up in the docs' screenshots: unlike
 * writePng's noise it compresses, so a screenshot showing it stays small.
 */
export async function writePoster(file: string, colours: { sky: string; sun: string; hills: string }, sunX = 0.7, width = 1200, height = 800) {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="${colours.sky}"/>
    <circle cx="${width * sunX}" cy="${height * 0.35}" r="${height * 0.14}" fill="${colours.sun}"/>
    <path d="M0 ${height * 0.75} Q ${width * 0.25} ${height * 0.55} ${width * 0.5} ${height * 0.72} T ${width} ${height * 0.68} V ${height} H 0 Z" fill="${colours.hills}"/>
  </svg>`;
  await sharp(Buffer.from(svg)).png({ palette: true }).toFile(file);
  return file;
}

/** An H.264 test clip (a moving test pattern, with a tone in AAC unless `audio: false`), made with ffmpeg. */
export function writeTestClip(file: string, clip: { size: string; seconds: number; videoRate?: string[]; audio?: boolean }) {
  const ffmpeg = process.env.FFMPEG_PATH ?? "ffmpeg";
  const audio = clip.audio ?? true;
  execFileSync(ffmpeg, [
    "-hide_banner", "-loglevel", "error", "-y",
    "-f", "lavfi", "-i", `testsrc2=size=${clip.size}:rate=25`,
    ...(audio ? ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100"] : []),
    "-t", String(clip.seconds), "-c:v", "libx264", "-preset", "veryfast", ...(clip.videoRate ?? []),
    "-pix_fmt", "yuv420p", ...(audio ? ["-c:a", "aac", "-b:a", "96k"] : []), "-movflags", "+faststart", file,
  ]);
  return file;
}

/**
 * A 12 s H.264/AAC clip of at least 6 MiB (so the Dashboard uploads it in multipart) that plays
 * for longer than the 2 s the player test waits for.
 */
export function writeVideo(file: string) {
  writeTestClip(file, { size: "1280x720", seconds: 12, videoRate: ["-b:v", "4.4M", "-maxrate", "4.4M", "-bufsize", "8M"] });
  const size = fs.statSync(file).size;
  if (size < 6 * MiB) throw new Error(`the generated video has ${size} bytes; the multipart test needs at least 6 MiB`);
  return file;
}

/**
 * A 3 s H.264/AAC clip well under 5 MiB: it goes up in one PUT, for object stores that cannot list
 * a multipart upload's parts (s3rver, which the PostgreSQL browser tests share between nodes).
 */
export function writeShortVideo(file: string) {
  return writeTestClip(file, { size: "640x360", seconds: 3 });
}

/** Bytes that are no file format at all, with a name that says otherwise. */
export function writeRandom(file: string, bytes: number) {
  fs.writeFileSync(file, crypto.randomBytes(bytes));
  return file;
}

export async function makeFixtures(dir: string) {
  fs.mkdirSync(dir, { recursive: true });
  return {
    image: await writePng(path.join(dir, "sunrise.png"), [220, 120, 40]),
    imageB: await writePng(path.join(dir, "sunrise-v2.png"), [40, 140, 220]),
    imageC: await writePng(path.join(dir, "sunrise-v3.png"), [60, 200, 90]),
    video: writeVideo(path.join(dir, "clip.mp4")),
    // Over one 8 MiB chunk, so a resumable upload takes two PUTs.
    big: writeRandom(path.join(dir, "archive.bin"), 9 * MiB + 12345),
    notAVideo: writeRandom(path.join(dir, "broken.mp4"), 64 * 1024),
  };
}
