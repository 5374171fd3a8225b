import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { and, eq } from "drizzle-orm";
import { assets, type MediaInfo, type ProcessingError, type Thumbnail } from "../db/schema";
import type { Deps } from "../deps";
import { choosePosterFrame } from "../encode/poster";
import { announceJobResult } from "../live/announce-from-job";
import { log } from "../log/logger.mjs";
import { MediaLimitError, MediaStoppedError } from "../sandbox/limit-error";
import type { StorageDriver } from "../storage/types";
import { probe } from "./ffmpeg";
import { MediaToolError } from "./media-tools";
import { renderImage } from "./render-image";
import { isAudio, isImage, isVideo, SNIFF_BYTES, sniffMediaType } from "./sniff";

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
 * A derived piece (dimensions, probe, poster, colours, thumbnails) that could not be made from
 * these bytes: the asset is saved without it and the log says what was lost and why. Retrying the
 * job would read the same bytes and fail the same way, so the failure does not fail the run; a
 * step over a media limit is also recorded on the asset (`processing_error`) through `limits`.
 * A missing or broken ffmpeg/ffprobe is the server's problem, not the file's: logged as an error.
 * A child ended by a server stop fails the run, so the step runs again after the restart.
 */
async function orWithout<T>(assetId: number, step: string, lost: string, work: () => Promise<T>, fallback: T, limits: MediaLimitError[]): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof MediaStoppedError) throw err;
    if (err instanceof MediaLimitError) limits.push(err);
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
    let frame: string | null = null;
    const limits: MediaLimitError[] = [];
    if (isImage(mediaType)) frame = file;
    else if (isVideo(mediaType) || isAudio(mediaType)) {
      const p = await orWithout(asset.id, "probe", "dimensions, duration, poster and thumbnails", () => probe(file), null, limits);
      if (p) media = { width: p.width, height: p.height, durationSeconds: p.durationSeconds, hasAudio: p.hasAudio };
      if (p?.hasVideo) frame = await orWithout(asset.id, "poster", "a poster and thumbnails", () => choosePosterFrame(file, p.durationSeconds, dir), null, limits);
    }
    const thumbnails: Thumbnail[] = [];
    if (frame) {
      const source = frame;
      const none = { size: {}, colors: [], thumbnails: [], limit: null };
      const rendered = await orWithout(asset.id, "render", "its size, colours and thumbnails", () => renderImage(asset.id, source, dir), none, limits);
      if (rendered.limit) {
        limits.push(rendered.limit);
        log().warn({ component: "media", asset_id: asset.id, step: "render", err: rendered.limit }, "processing: the image render went over a media limit; the asset is saved with what was made before it");
      }
      // An image's own size; a video's comes from the probe (its poster is one frame of it).
      if (isImage(mediaType)) media = { ...media, ...rendered.size };
      if (rendered.colors.length) media = { ...media, colors: rendered.colors };
      for (const t of rendered.thumbnails) {
        const key = thumbnailKey(asset.storageKey, t.size);
        await storage.write(key, await fs.promises.readFile(t.file), "image/jpeg");
        thumbnails.push({ size: t.size, key, width: t.width, height: t.height });
      }
    }
    const processingError: ProcessingError | null = limits.length ? { code: limits[0].code, message: limits[0].summary } : null;
    const saved = await deps.db
      .update(assets)
      .set({ mediaType, media, thumbnails, processingError })
      .where(and(eq(assets.id, asset.id), eq(assets.storageKey, asset.storageKey)))
      .returning({ id: assets.id });
    if (saved.length) await announceJobResult(deps.db, { kind: "asset_processed", assetId: asset.id });
    return saved.length ? { status: "processed", mediaType, isVideo: isVideo(mediaType) } : { status: "superseded" };
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
