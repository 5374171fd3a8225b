import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import type { Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { captureLogs } from "../../lib/log/capture";
import { binaries } from "../../lib/media/ffmpeg";
import { liveChildren } from "../../lib/sandbox/children";
import { call } from "../helpers/call-route";
import { newApiToken, newWorkspace } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { finishedRuns, waitFor } from "../jobs/helpers";
import { pngDecompressionBomb, SVG_FILTER_BOMB, svgMorphologyBomb } from "../media/bombs";
import { assetRow, useVideoJobs, waitForAsset } from "../video/helpers";

/**
 * Contract §13, "untrusted files are decoded outside the server process": workspace A uploads
 * hostile files (SVG filter bombs, a PNG decompression bomb, a 30-minute video of noise) through
 * the API, and the embedded executor processes them with the real job functions. Each ends with
 * processing_error time_limit / memory_limit or is refused, this process (the server) keeps its
 * memory, and meanwhile workspace B's reads keep p99 < 250 ms and its new 64×64 PNG gets its
 * thumbnails within 30 s. EASEL_MEDIA_TIMEOUT_S is 45 here (the morphology bombs would otherwise
 * hold their slots 120 s each); the memory limit is the default 1024 MB.
 */
let deps: Awaited<ReturnType<typeof useVideoJobs>>;
let a: { ws: Workspace; token: string };
let b: { ws: Workspace; token: string };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-media-bombs-"));

beforeAll(async () => {
  vi.stubEnv("EASEL_MEDIA_TIMEOUT_S", "45");
  // B's reads run back to back for minutes: the per-token rate limit is not what is measured here.
  vi.stubEnv("EASEL_RATE_LIMIT_PER_MIN", "1000000");
  resetEnvCache();
  deps = await useVideoJobs();
  for (const side of ["a", "b"] as const) {
    const ws = await newWorkspace(deps.db);
    const who = { ws, token: await newApiToken(deps.db, ws) };
    if (side === "a") a = who;
    else b = who;
  }
});

afterAll(() => {
  vi.unstubAllEnvs();
  resetEnvCache();
  fs.rmSync(dir, { recursive: true, force: true });
});

const p99 = (ms: number[]) => [...ms].sort((x, y) => x - y)[Math.floor(0.99 * (ms.length - 1))];

/** B's reads, one after another (GET asset, GET boards) until stopped: their latencies in ms. */
function readLoop(assetToken: string) {
  const latencies: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      for (const [handler, route, params] of [
        [assetRoute.GET, `/v1/${b.ws.slug}/assets/${assetToken}`, { slug: b.ws.slug, token: assetToken }],
        [boardsRoute.GET, `/v1/${b.ws.slug}/boards`, { slug: b.ws.slug }],
      ] as const) {
        const started = performance.now();
        const res = await call(handler, { path: route, token: b.token, params });
        latencies.push(performance.now() - started);
        expect(res.status).toBe(200);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return { latencies, stop: async () => ((running = false), await done) };
}

/** This process's RSS sampled every 100 ms until stopped: the highest sample above the start, in MB. */
function rssWatch() {
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  return { stop: () => (clearInterval(timer), (peak - before) / (1024 * 1024)) };
}

/** B uploads a 64×64 PNG: how long until its three thumbnails are on the asset, in ms. */
async function bThumbnailsMs(): Promise<number> {
  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#0a0" } }).png().toBuffer();
  const started = Date.now();
  const { asset } = await uploadAsset(b.ws, b.token, deps.store.s3, png, { media_type: "image/png" });
  await waitForAsset(deps.db, asset.id, (row) => row.thumbnails.length === 3, "B's thumbnails", 60_000);
  return Date.now() - started;
}

describe("hostile images from one workspace, another workspace's reads and uploads meanwhile", () => {
  it("SVG filter bomb, two feMorphology r=1000 SVGs, a 30,000² PNG: each stopped or refused; B's p99 < 250 ms, its thumbnails < 30 s", { timeout: 300_000 }, async () => {
    const warm = await uploadAsset(b.ws, b.token, deps.store.s3, await sharp({ create: { width: 8, height: 8, channels: 3, background: "#000" } }).png().toBuffer());
    const rss = rssWatch();
    const reads = readLoop(warm.asset.token);
    const pngBomb = await pngDecompressionBomb(30_000); // made first: it takes seconds, and the uploads should follow each other closely
    const uploads = [];
    for (const [bytes, mediaType] of [
      [svgMorphologyBomb("red"), "image/svg+xml"],
      [svgMorphologyBomb("blue"), "image/svg+xml"],
      [SVG_FILTER_BOMB, "image/svg+xml"],
      [pngBomb, "image/png"],
    ] as const) {
      uploads.push(await uploadAsset(a.ws, a.token, deps.store.s3, bytes, { media_type: mediaType }));
    }
    // A's renders hold processing slots (the rest of A's files queue behind them) when B's upload arrives.
    await waitFor(async () => liveChildren() >= 1, 60_000, "A's first render to start");
    await new Promise((r) => setTimeout(r, 1_000));
    const thumbnailsMs = await bThumbnailsMs();
    // Every processing run ended: B's two uploads and A's four.
    await finishedRuns(deps.db, "easel-asset-process", 6, 240_000);
    await reads.stop();
    const [morphRed, morphBlue, filter, png] = await Promise.all(uploads.map(({ asset }) => assetRow(deps.db, asset.id)));
    const growthMb = rss.stop();

    expect(morphRed.processingError).toEqual({ code: "time_limit", message: "the image render ran longer than its time limit of 45 s and was stopped" });
    expect(morphBlue.processingError?.code).toBe("time_limit");
    expect(filter.processingError).toEqual({ code: "memory_limit", message: "the image render (colors) needed more than its memory limit of 1024 MB" });
    expect([png.processingError, png.thumbnails]).toEqual([null, []]);
    const readP99 = p99(reads.latencies);
    console.log(`[media-bombs] B: thumbnails in ${thumbnailsMs} ms, reads p99 ${readP99.toFixed(1)} ms over ${reads.latencies.length}; server RSS +${growthMb.toFixed(0)} MB`);
    expect(thumbnailsMs).toBeLessThan(30_000);
    expect(readP99).toBeLessThan(250);
    expect(growthMb).toBeLessThan(200);
  });

  it("a 30-minute video of noise: probed and postered within the limits, encoded under 30 × EASEL_MEDIA_TIMEOUT_S; B unaffected", { timeout: 300_000 }, async () => {
    const file = path.join(dir, "noise.mp4");
    // 160×90 at 2 frames a second keeps the file at a few MB; every frame is fresh noise.
    execFileSync(binaries().ffmpeg, ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=2:duration=1800,noise=alls=40:allf=t", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "45", "-pix_fmt", "yuv420p", file]);
    const logs = captureLogs();
    const rss = rssWatch();
    const warm = await uploadAsset(b.ws, b.token, deps.store.s3, await sharp({ create: { width: 8, height: 8, channels: 3, background: "#fff" } }).png().toBuffer());
    const reads = readLoop(warm.asset.token);
    try {
      const { asset } = await uploadAsset(a.ws, a.token, deps.store.s3, fs.readFileSync(file), { media_type: "video/mp4" });
      const thumbnailsMs = await bThumbnailsMs();
      const video = await waitForAsset(deps.db, asset.id, (row) => row.encodeStatus === "ready" || row.encodeStatus === "failed", "the noise video's encode", 240_000);
      await reads.stop();
      const growthMb = rss.stop();
      const processed = await assetRow(deps.db, asset.id);
      expect(processed.media.durationSeconds).toBeGreaterThan(1799);
      expect(processed.thumbnails).toHaveLength(3);
      // Each rendition's ffmpeg ran under EASEL_MEDIA_TIMEOUT_S per minute of source: 45 s × 30.
      const limits = logs.lines().filter((l) => l.msg === "rendition encode started" && l.asset_id === asset.id).map((l) => l.time_limit_s);
      expect(limits.length).toBeGreaterThan(0);
      expect(new Set(limits)).toEqual(new Set([1350]));
      // Within that limit the encode ends (ready), or over it fails as time_limit without retries.
      if (video.encodeStatus === "failed") expect(video.processingError?.code).toBe("time_limit");
      else expect(video.processingError).toBeNull();
      const readP99 = p99(reads.latencies);
      console.log(`[media-bombs] 30-min noise video: encode ${video.encodeStatus}; B: thumbnails in ${thumbnailsMs} ms, reads p99 ${readP99.toFixed(1)} ms; server RSS +${growthMb.toFixed(0)} MB`);
      expect(thumbnailsMs).toBeLessThan(30_000);
      expect(readP99).toBeLessThan(250);
      expect(growthMb).toBeLessThan(200);
    } finally {
      logs.restore();
      await reads.stop();
    }
  });
});
