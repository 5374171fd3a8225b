import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { and, eq } from "drizzle-orm";
import { assets, type MediaInfo, type Thumbnail } from "../db/schema";
import type { Deps } from "../deps";
import { announceJobResult } from "../live/announce-from-job";
import { log } from "../log/logger.mjs";
import type { StorageDriver } from "../storage/types";
import { dominantColors } from "./colors";
import { binaries, probe, run } from "./ffmpeg";
import { MediaToolError } from "./media-tools";
import { isAudio, isImage, isVideo, SNIFF_BYTES, sniffMediaType } from "./sniff";
import { imageSize, imageSource, renderThumbnails, type ImageSource } from "./thumbnails";

export type ProcessResult = { status: "processed" | "gone" | "superseded"; mediaType?: string; isVideo?: boolean };

/** Where an asset's derived files live: beside the original, never inside it (a file store has no "a" and "a/…" both). */
export const thumbnailKey = (originalKey: string, size: Thumbnail["size"]) => `${originalKey}.thumb-${size}.jpg`;

async function download(storage: StorageDriver, key: string, dir: string): Promise<string> {
  const file = path.join(dir, "original");
  await pipeline(Readable.fromWeb((await storage.read(key)) as never), fs.createWriteStream(file));
  return file;
}

async function firstBytes(file: string, n = SNIFF_BYTES): Promise<Uint8Array> {
  const fd = await fs.promises.open(file, "r");
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fd.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fd.close();
  }
}

/**
 * The poster of a video: the frame at 10 % of its duration (past fades from black and title
 * cards, still early enough to represent the clip), as a PNG its thumbnails are rendered from;
 * the large thumbnail is the video's display_url.
 */
async function posterFrame(file: string, durationSeconds: number | undefined, dir: string): Promise<string> {
  const at = durationSeconds && durationSeconds > 0 ? durationSeconds * 0.1 : 0;
  const out = path.join(dir, "poster.png");
  await run(binaries().ffmpeg, ["-v", "error", "-y", "-ss", String(at), "-i", file, "-frames:v", "1", out], 120_000);
  return out;
}

/**
 * A derived piece (dimensions, probe, poster, colours, thumbnails) that could not be made from
 * these bytes: the asset is saved without it and the log says what was lost and why. Retrying the
 * job would read the same bytes and fail the same way, so the failure does not fail the run. A
 * missing or broken ffmpeg/ffprobe is the server's problem, not the file's: logged as an error.
 */
async function orWithout<T>(assetId: number, step: string, lost: string, work: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const level = err instanceof MediaToolError ? "error" : "warn";
    log()[level]({ component: "media", asset_id: assetId, step, err }, `processing: ${step} failed; the asset is saved without ${lost}`);
    return fallback;
  }
}

/**
 * Processing after an upload or a version write: the media type is sniffed from the bytes (not
 * trusted from the client), dimensions and duration probed, thumbnails rendered and stored beside
 * the original. The result is saved only if the head still holds the same bytes: a version
 * written meanwhile has its own processing run.
 */
export async function processAsset(deps: Deps, storage: StorageDriver, assetId: number): Promise<ProcessResult> {
  const [asset] = await deps.db.select().from(assets).where(eq(assets.id, assetId));
  if (!asset) return { status: "gone" };
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "easel-process-"));
  try {
    const file = await download(storage, asset.storageKey, dir);
    const mediaType = sniffMediaType(await firstBytes(file)) ?? asset.mediaType;
    let media: MediaInfo = {};
    let frame: ImageSource | null = null;
    if (isImage(mediaType)) {
      frame = await imageSource(file);
      if (!frame) log().info({ component: "media", asset_id: asset.id, step: "thumbnails" }, "processing: a vector image too large to render; the asset is saved without thumbnails");
      if (frame) media = await orWithout(asset.id, "measure", "width and height", () => imageSize(frame!), {});
    } else if (isVideo(mediaType) || isAudio(mediaType)) {
      const p = await orWithout(asset.id, "probe", "dimensions, duration, poster and thumbnails", () => probe(file), null);
      if (p) media = { width: p.width, height: p.height, durationSeconds: p.durationSeconds, hasAudio: p.hasAudio };
      if (p?.hasVideo) frame = await orWithout(asset.id, "poster", "a poster and thumbnails", () => posterFrame(file, p.durationSeconds, dir), null);
    }
    const thumbnails: Thumbnail[] = [];
    if (frame) {
      const source = frame;
      const colors = await orWithout(asset.id, "colors", "its colours", () => dominantColors(source), []);
      if (colors.length) media = { ...media, colors };
      for (const t of await orWithout(asset.id, "thumbnails", "thumbnails", () => renderThumbnails(source), [])) {
        const key = thumbnailKey(asset.storageKey, t.size);
        await storage.write(key, t.body, "image/jpeg");
        thumbnails.push({ size: t.size, key, width: t.width, height: t.height });
      }
    }
    const saved = await deps.db
      .update(assets)
      .set({ mediaType, media, thumbnails })
      .where(and(eq(assets.id, asset.id), eq(assets.storageKey, asset.storageKey)))
      .returning({ id: assets.id });
    if (saved.length) await announceJobResult(deps.db, { kind: "asset_processed", assetId: asset.id });
    return saved.length ? { status: "processed", mediaType, isVideo: isVideo(mediaType) } : { status: "superseded" };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
