import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { assets, uploadSessions, type Workspace } from "../../lib/db/schema";
import { captureLogs } from "../../lib/log/capture";
import { binaries } from "../../lib/media/ffmpeg";
import { processAsset } from "../../lib/media/process-asset";
import { expireUploads } from "../../lib/uploads/expire-uploads";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newWorkspace } from "../helpers/factories";
import { complete, keyOf, prepare, uploadAsset } from "../helpers/uploads";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let token: string;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  token = await newApiToken(deps.db, ws);
});

const row = async (id: number) => (await deps.db.select().from(assets).where(eq(assets.id, id)))[0];

describe("processing after upload", () => {
  it("sniffs the type from the bytes, measures the image, renders three thumbnails and names its colours", async () => {
    const png = await sharp({ create: { width: 1600, height: 900, channels: 3, background: { r: 200, g: 20, b: 30 } } }).png().toBuffer();
    const { asset } = await uploadAsset(ws, token, deps.store.s3, png, { media_type: "application/octet-stream" });
    expect(await processAsset(deps, deps.store.s3, asset.id)).toMatchObject({ status: "processed", mediaType: "image/png" });
    const a = await row(asset.id);
    expect(a.mediaType).toBe("image/png");
    expect(a.media).toMatchObject({ width: 1600, height: 900, colors: ["red"] });
    expect(a.thumbnails.map((t) => [t.size, t.width, t.height])).toEqual([["small", 160, 90], ["medium", 480, 270], ["large", 1280, 720]]);
    for (const t of a.thumbnails) {
      const meta = await sharp(await deps.store.s3.bytes(t.key)).metadata();
      expect([meta.format, meta.width]).toEqual(["jpeg", t.width]);
    }
  });

  it("probes a video and renders a poster frame", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-clip-"));
    const file = path.join(dir, "clip.mp4");
    execFileSync(binaries().ffmpeg, ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25:duration=3", "-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", file]);
    const { asset } = await uploadAsset(ws, token, deps.store.s3, fs.readFileSync(file), { media_type: "video/mp4" });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(await processAsset(deps, deps.store.s3, asset.id)).toMatchObject({ status: "processed", isVideo: true });
    const a = await row(asset.id);
    expect(a.media).toMatchObject({ width: 320, height: 240, hasAudio: true });
    expect(a.media.durationSeconds).toBeGreaterThan(2.5);
    expect(a.thumbnails.map((t) => t.size)).toEqual(["small", "medium", "large"]);
  }, 60_000);

  it("saves a video whose bytes cannot be probed without dimensions or thumbnails, and logs what was lost", async () => {
    // An MP4 signature followed by noise: sniffed as a video, unreadable to ffprobe.
    const bytes = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from("ftypisom\0\0\x02\0isomiso2"), crypto.randomBytes(4000)]);
    const { asset } = await uploadAsset(ws, token, deps.store.s3, bytes, { media_type: "video/mp4" });
    const logs = captureLogs();
    try {
      expect(await processAsset(deps, deps.store.s3, asset.id)).toMatchObject({ status: "processed", mediaType: "video/mp4" });
      expect(logs.lines().filter((l) => l.component === "media")).toEqual([
        expect.objectContaining({ level: "warn", asset_id: asset.id, step: "probe", msg: "processing: probe failed; the asset is saved without dimensions, duration, poster and thumbnails", err: expect.objectContaining({ message: expect.stringContaining("ffprobe failed") }) }),
      ]);
    } finally {
      logs.restore();
    }
    const a = await row(asset.id);
    expect([a.media, a.thumbnails]).toEqual([{}, []]);
  }, 60_000);

  it("keeps the declared type for unrecognised bytes and does not overwrite a newer head", async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, Buffer.from("plain text, not media"), { media_type: "text/plain" });
    await deps.db.update(assets).set({ storageKey: "ws/other/key" }).where(eq(assets.id, asset.id));
    await deps.store.s3.put("ws/other/key", Buffer.from("newer"));
    await deps.db.update(assets).set({ storageKey: asset.primary_storage_id }).where(eq(assets.id, asset.id));
    expect(await processAsset(deps, deps.store.s3, asset.id)).toMatchObject({ status: "processed", mediaType: "text/plain" });
    expect(await processAsset(deps, deps.store.s3, 987654321)).toEqual({ status: "gone" });
  });
});

describe("expiring abandoned uploads", () => {
  it("deletes the bytes of sessions never completed within 24 h and leaves completed ones", async () => {
    const bytes = Buffer.from("abandoned");
    const abandoned = (await prepare(ws, token, { media_type: "text/plain", size: bytes.length })).body.data;
    await deps.store.s3.send(abandoned, bytes);
    const big = (await prepare(ws, token, { media_type: "application/octet-stream", size: 6 * 1024 * 1024 })).body.data;
    const { asset } = await uploadAsset(ws, token, deps.store.s3, Buffer.from("kept"), { media_type: "text/plain" });
    expect((await expireUploads(deps)).expired).toBe(0);
    expect([await deps.store.s3.has(keyOf(abandoned.upload_url)), await deps.store.s3.hasUpload(big.multipart_upload_id)]).toEqual([true, true]);
    deps.time.advance(25 * 3600e3);
    try {
      const result = await expireUploads(deps);
      expect(result.failures).toBe(0);
      expect(result.expired).toBeGreaterThanOrEqual(2);
      expect(await deps.store.s3.has(keyOf(abandoned.upload_url))).toBe(false);
      expect(await deps.store.s3.hasUpload(big.multipart_upload_id)).toBe(false);
      expect(await deps.store.s3.has(asset.primary_storage_id)).toBe(true);
      const states = await deps.db.select({ status: uploadSessions.status }).from(uploadSessions).where(eq(uploadSessions.workspaceId, ws.id));
      expect(states.filter((s) => s.status === "pending")).toEqual([]);
      expect((await complete(ws, token, { signed_storage_id: abandoned.signed_storage_id })).status).toBe(422);
    } finally {
      deps.time.reset();
    }
  });
});
