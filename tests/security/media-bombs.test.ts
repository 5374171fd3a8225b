import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { captureLogs } from "../../lib/log/capture";
import { binaries } from "../../lib/media/ffmpeg";
import { liveChildren } from "../../lib/sandbox/children";
import { newApiToken, newWorkspace } from "../helpers/factories";
import { expectOtherTenantUnharmed, measureOtherTenant, newOtherTenant, startEaselServer, type OtherTenant } from "../helpers/other-tenant";
import { uploadAsset } from "../helpers/uploads";
import { finishedRuns, waitFor } from "../jobs/helpers";
import { pngDecompressionBomb, SVG_FILTER_BOMB, svgMorphologyBomb } from "../media/bombs";
import { assetRow, useVideoJobs, waitForAsset } from "../video/helpers";

/**
 * Contract §13, "untrusted files are decoded outside the server process": workspace A uploads
 * hostile files (SVG filter bombs, a PNG decompression bomb, a 30-minute video of noise) through
 * the API, and the embedded executor processes them with the real job functions. Each ends with
 * processing_error time_limit / memory_limit or is refused, this process (the server) keeps its
 * memory, and meanwhile workspace B is measured the three ways of §13 "Tested as a promise"
 * (tests/helpers/other-tenant.ts): its reads over Easel's HTTP server keep p99 < 250 ms, its new
 * 64×64 PNG gets its thumbnails within 30 s, and /healthz answers 200 throughout. EASEL_MEDIA_TIMEOUT_S is 20 here (the morphology bombs would otherwise
 * hold their slots 120 s each); the memory limit is the default 1024 MB.
 */
let deps: Awaited<ReturnType<typeof useVideoJobs>>;
let server: Awaited<ReturnType<typeof startEaselServer>>;
let a: { ws: Workspace; token: string };
let b: OtherTenant;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-media-bombs-"));

beforeAll(async () => {
  vi.stubEnv("EASEL_MEDIA_TIMEOUT_S", "20");
  // B's reads run back to back for minutes: the per-token rate limit is not what is measured here.
  vi.stubEnv("EASEL_RATE_LIMIT_PER_MIN", "1000000");
  resetEnvCache();
  deps = await useVideoJobs();
  server = await startEaselServer();
  const ws = await newWorkspace(deps.db);
  a = { ws, token: await newApiToken(deps.db, ws) };
  b = await newOtherTenant(deps.db);
});

afterAll(async () => {
  await server?.close();
  vi.unstubAllEnvs();
  resetEnvCache();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** B measured over this file's server while A's files are processed. */
const measureB = () => measureOtherTenant({ port: server.port, db: deps.db, storage: deps.store.s3, tenant: b });

/** This process's RSS sampled every 100 ms until stopped: the highest sample above the start, in MB. */
function rssWatch() {
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
  return { stop: () => (clearInterval(timer), (peak - before) / (1024 * 1024)) };
}

describe("hostile images from one workspace, another workspace's reads and uploads meanwhile", () => {
  it("SVG filter bomb, two feMorphology r=1000 SVGs, a 30,000² PNG: each stopped or refused; B's p99 < 250 ms, its thumbnails < 30 s", { timeout: 300_000 }, async () => {
    const rss = rssWatch();
    const probe = await measureB();
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
    probe.upload();
    // Every processing run ended: B's two uploads (the probe's warm-up and the measured one) and A's four.
    await finishedRuns(deps.db, "easel-asset-process", 6, 240_000);
    const figures = await probe.stop();
    const [morphRed, morphBlue, filter, png] = await Promise.all(uploads.map(({ asset }) => assetRow(deps.db, asset.id)));
    const growthMb = rss.stop();

    expect(morphRed.processingError).toEqual({ code: "time_limit", message: "the image render ran longer than its time limit of 20 s and was stopped" });
    expect(morphBlue.processingError?.code).toBe("time_limit");
    expect(filter.processingError).toEqual({ code: "memory_limit", message: "the image render (colors) needed more than its memory limit of 1024 MB" });
    expect([png.processingError, png.thumbnails]).toEqual([null, []]);
    console.log(`[media-bombs] image bombs: server RSS +${growthMb.toFixed(0)} MB`);
    expectOtherTenantUnharmed(figures, "SVG filter bombs and a PNG decompression bomb");
    // Processing not keyed by workspace lets A's renders hold both slots for their whole 20 s limit,
    // and B's upload (sent 1 s into the first) waits ~19 s: half the limit tells the two apart.
    expect(figures.thumbnailsMs!, "B's thumbnails while A's renders held their slots (ms)").toBeLessThan(10_000);
    expect(growthMb).toBeLessThan(200);
  });

  it("a 30-minute video of noise: probed and postered within the limits, encoded under 30 × EASEL_MEDIA_TIMEOUT_S; B unaffected", { timeout: 300_000 }, async () => {
    const file = path.join(dir, "noise.mp4");
    // 160×90 at 2 frames a second keeps the file at a few MB; every frame is fresh noise.
    execFileSync(binaries().ffmpeg, ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=160x90:rate=2:duration=1800,noise=alls=40:allf=t", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "45", "-pix_fmt", "yuv420p", file]);
    const logs = captureLogs();
    const rss = rssWatch();
    const probe = await measureB();
    try {
      const { asset } = await uploadAsset(a.ws, a.token, deps.store.s3, fs.readFileSync(file), { media_type: "video/mp4" });
      probe.upload();
      const video = await waitForAsset(deps.db, asset.id, (row) => row.encodeStatus === "ready" || row.encodeStatus === "failed", "the noise video's encode", 240_000);
      const figures = await probe.stop();
      const growthMb = rss.stop();
      const processed = await assetRow(deps.db, asset.id);
      expect(processed.media.durationSeconds).toBeGreaterThan(1799);
      expect(processed.thumbnails).toHaveLength(3);
      // The ladder's ffmpeg (one rung here) ran under EASEL_MEDIA_TIMEOUT_S per minute of source per rung: 20 s × 30.
      const limits = logs.lines().filter((l) => l.msg === "ladder encode started" && l.asset_id === asset.id).map((l) => l.time_limit_s);
      expect(limits.length).toBeGreaterThan(0);
      expect(new Set(limits)).toEqual(new Set([600]));
      // Within that limit the encode ends (ready), or over it fails as time_limit without retries.
      if (video.encodeStatus === "failed") expect(video.processingError?.code).toBe("time_limit");
      else expect(video.processingError).toBeNull();
      console.log(`[media-bombs] 30-min noise video: encode ${video.encodeStatus}; server RSS +${growthMb.toFixed(0)} MB`);
      expectOtherTenantUnharmed(figures, "a 30-minute video of noise");
      expect(growthMb).toBeLessThan(200);
    } finally {
      logs.restore();
      // Ends B's loops if the test failed before measuring them; after stop() it does nothing.
      await probe.halt();
    }
  });
});
