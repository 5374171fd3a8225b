import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import { assets, type Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { processAsset } from "../../lib/media/process-asset";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newWorkspace } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { pngDecompressionBomb, SVG_FILTER_BOMB, svgMorphologyBomb } from "./bombs";

/**
 * Processing of hostile images (contract §13): the render runs in a child under the media limits,
 * the asset records which limit stopped it (`processing_error`), keeps what was made before it,
 * and the server's own memory does not follow the file's.
 */
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let token: string;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  token = await newApiToken(deps.db, ws);
});

afterEach(() => {
  vi.unstubAllEnvs();
  resetEnvCache();
});

const row = async (id: number) => (await deps.db.select().from(assets).where(eq(assets.id, id)))[0];
const getAsset = (assetToken: string) => call(assetRoute.GET, { path: `/v1/${ws.slug}/assets/${assetToken}`, token, params: { slug: ws.slug, token: assetToken } });

/** Runs `work` while sampling this process's RSS every 50 ms: the highest sample above the start, in MB. */
async function rssGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growthMb: (peak - before) / (1024 * 1024) };
  } finally {
    clearInterval(sample);
  }
}

describe("an image over the media limits", () => {
  it("the SVG filter bomb under the default limits: memory_limit on the asset, thumbnails from before it, the server's RSS flat", async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, SVG_FILTER_BOMB, { media_type: "image/svg+xml" });
    const { result, growthMb } = await rssGrowth(() => processAsset(deps, deps.store.s3, asset.id));
    expect(result).toMatchObject({ status: "processed", mediaType: "image/svg+xml" });
    const a = await row(asset.id);
    expect(a.processingError).toEqual({ code: "memory_limit", message: "the image render (colors) needed more than its memory limit of 1024 MB" });
    // Measured before the colours went over the limit; thumbnails render at their own small size.
    expect(a.media).toMatchObject({ width: 16000, height: 16000 });
    expect(a.thumbnails.map((t) => t.size)).toEqual(["small", "medium", "large"]);
    expect(growthMb).toBeLessThan(100);
    console.log(`[media] SVG filter bomb, default limits: processing_error ${a.processingError?.code}, server RSS +${growthMb.toFixed(0)} MB`);
    const got = await getAsset(asset.token);
    expect(got.status).toBe(200);
    expect(got.body.data.processing_error).toEqual({ code: "memory_limit", message: "the image render (colors) needed more than its memory limit of 1024 MB" });
  }, 120_000);

  it("an SVG morphology of radius 1000 on 2000² over a 3 s limit: time_limit, and a later version that processes fine clears it", async () => {
    vi.stubEnv("EASEL_MEDIA_TIMEOUT_S", "3");
    resetEnvCache();
    const { asset } = await uploadAsset(ws, token, deps.store.s3, svgMorphologyBomb(), { media_type: "image/svg+xml" });
    const started = Date.now();
    const { growthMb } = await rssGrowth(() => processAsset(deps, deps.store.s3, asset.id));
    expect(Date.now() - started).toBeLessThan(20_000);
    const a = await row(asset.id);
    expect(a.processingError).toEqual({ code: "time_limit", message: "the image render ran longer than its time limit of 3 s and was stopped" });
    expect(growthMb).toBeLessThan(100);

    // New bytes at the head (as a version write leaves them) process within the limits: the error goes.
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#00f" } }).png().toBuffer();
    await deps.store.s3.put(`${a.storageKey}.v2`, png);
    await deps.db.update(assets).set({ storageKey: `${a.storageKey}.v2` }).where(eq(assets.id, a.id));
    await processAsset(deps, deps.store.s3, asset.id);
    const b = await row(asset.id);
    expect([b.processingError, b.media.width, b.thumbnails.length]).toEqual([null, 64, 3]);
    expect((await getAsset(asset.token)).body.data.processing_error).toBeNull();
  }, 120_000);

  it("a PNG declaring 30,000² pixels in 2.6 MB is refused by the pixel limit: no thumbnails, no limit reached, RSS flat", async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, await pngDecompressionBomb(30_000), { media_type: "image/png" });
    const { result, growthMb } = await rssGrowth(() => processAsset(deps, deps.store.s3, asset.id));
    expect(result).toMatchObject({ status: "processed", mediaType: "image/png" });
    const a = await row(asset.id);
    expect([a.thumbnails, a.processingError]).toEqual([[], null]);
    expect(growthMb).toBeLessThan(100);
  }, 120_000);
});
