import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { assets, type Workspace } from "../../lib/db/schema";
import { parseMediaPlaylist } from "../../lib/encode/playlists";
import { newApiToken, newWorkspace } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { fetchMedia, getAsset, makeClip, retryEncode, useVideoJobs, waitFor, waitForAsset, type ClipOptions, type VideoDeps } from "./helpers";

let deps: VideoDeps;
let ws: Workspace;
let token: string;
beforeAll(async () => {
  deps = await useVideoJobs();
  ws = await newWorkspace(deps.db, { plan: "business" });
  token = await newApiToken(deps.db, ws);
});

async function encode(bytes: Buffer) {
  const { asset } = await uploadAsset(ws, token, deps.store.s3, bytes, { media_type: "video/mp4" });
  const row = await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready" || a.encodeStatus === "failed", "the encode to end");
  return { asset, row };
}

/** RESOLUTION and CODECS of each variant, and the segment durations of the first. */
async function streamOf(assetToken: string) {
  const read = await getAsset(ws, token, assetToken);
  const url: string = read.body.data.stream_url;
  const master = await (await fetchMedia(deps, url)).text();
  const infs = [...master.matchAll(/RESOLUTION=(\d+x\d+),CODECS="([^"]+)"/g)].map((m) => ({ resolution: m[1], codecs: m[2] }));
  const first = master.split("\n").find((l) => l && !l.startsWith("#"))!;
  const playlist = parseMediaPlaylist(await (await fetchMedia(deps, new URL(first, url).href)).text());
  return { variants: infs, durations: playlist.segments.map((s) => s.duration) };
}

describe("sources that must encode", () => {
  it.each<[string, ClipOptions, string[], boolean]>([
    ["without audio", { size: "320x180", seconds: 2, audio: false }, ["320x180"], false],
    ["with odd dimensions (4:4:4, 321x241)", { size: "321x241", seconds: 2, pixFmt: "yuv444p" }, ["320x240"], true],
    ["rotated 90° (a phone's portrait video)", { size: "320x180", seconds: 2, rotate: true }, ["180x320"], true],
    ["of a few frames (0.12 s)", { size: "320x180", seconds: 0.12 }, ["320x180"], true],
  ])("%s", { timeout: 60_000 }, async (_, clip, resolutions, audio) => {
    const { asset, row } = await encode(makeClip(clip));
    expect([row.encodeStatus, row.encodeError]).toEqual(["ready", null]);
    const { variants, durations } = await streamOf(asset.token);
    expect(variants.map((v) => v.resolution)).toEqual(resolutions);
    for (const v of variants) expect(v.codecs.includes("mp4a.40.2")).toBe(audio);
    expect(durations.length).toBeGreaterThan(0);
    expect(durations.reduce((a, b) => a + b, 0)).toBeCloseTo(clip.seconds!, 0);
  });
});

describe("sources that fail with a code on the asset", () => {
  it("an audio-only file in an MP4 container: not encoded on upload, retry says not_a_video; an encode of it fails with no_video_stream", { timeout: 60_000 }, async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ audioOnly: true, seconds: 2 }), { media_type: "video/mp4" });
    // Processing probes it (a duration, no picture) and queues no encode.
    const probed = await waitForAsset(deps.db, asset.id, (a) => a.media.durationSeconds !== undefined, "processing");
    expect([probed.mediaType, probed.media.width, probed.encodeStatus]).toEqual(["video/mp4", undefined, "none"]);
    const retry = await retryEncode(ws, token, asset.token);
    expect(retry.status).toBe(422);
    expect(retry.body.errors[0].extensions.code).toBe("not_a_video");
    // Read before processing has run (a free plan's GET can be): the encode itself finds no picture.
    await deps.db.update(assets).set({ media: {} }).where(eq(assets.id, asset.id));
    expect((await retryEncode(ws, token, asset.token)).status).toBe(200);
    const row = await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "failed", "the encode to fail");
    expect(row.encodeError).toBe("no_video_stream");
    expect((await getAsset(ws, token, asset.token)).body.data).toMatchObject({ encode_status: "failed", stream_url: null, encode_error: { code: "no_video_stream", message: expect.any(String) } });
  });

  it("a rendition whose files storage refuses on every attempt: encode_failed, the other rendition's stored files are deleted, nothing is published", { timeout: 60_000 }, async () => {
    const storage = deps.store.s3;
    const write = storage.write.bind(storage);
    let storageKey = "";
    const written: string[] = [];
    storage.write = async (key, body, type) => {
      written.push(key);
      if (key.includes("/360p/")) throw new Error("storage refused the upload (test)");
      return write(key, body, type);
    };
    try {
      const { row } = await encode(makeClip({ size: "640x360", seconds: 2 }));
      storageKey = row.storageKey;
      expect([row.encodeStatus, row.encodeError, row.streamKey]).toEqual(["failed", "encode_failed", null]);
      // Files of the 240p rendition were stored, the 360p ones were encoded and refused; no playlist
      // was stored, since the rungs' segments are stored in lockstep, playlists after them.
      expect(written.some((k) => k.includes("/240p/"))).toBe(true);
      expect(written.some((k) => k.includes("/360p/"))).toBe(true);
      expect(written.filter((k) => k.endsWith("/index.m3u8") || k.endsWith("/master.m3u8"))).toEqual([]);
    } finally {
      storage.write = write;
    }
    // The lease goes right after the status is set.
    const left = await waitFor(() => storage.keys(`${storageKey}.hls/`), (keys) => keys.length === 0);
    expect(left).toEqual([]);
  });

  it("bytes that are no media file: unreadable_source, and nothing unpublished is left in storage", { timeout: 60_000 }, async () => {
    const before = new Set(await deps.store.s3.keys());
    // Fixed bytes: a fresh random file is sometimes something after all (ffprobe reads about one in
    // 170 as LRC lyrics), and the test would vary.
    const noise = crypto.createCipheriv("aes-256-ctr", Buffer.alloc(32, 1), Buffer.alloc(16)).update(Buffer.alloc(4096));
    const { row } = await encode(noise);
    expect([row.encodeStatus, row.encodeError]).toEqual(["failed", "unreadable_source"]);
    // The encode's lease.json goes right after the status is set, as in the test above.
    const unpublished = async () => (await deps.store.s3.keys()).filter((k) => !before.has(k) && k.includes(".hls/"));
    expect(await waitFor(unpublished, (keys) => keys.length === 0)).toEqual([]);
  });
});
