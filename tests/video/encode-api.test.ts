import { beforeAll, describe, expect, it } from "vitest";
import type { Workspace } from "../../lib/db/schema";
import { parseMediaPlaylist } from "../../lib/encode/playlists";
import { assetChanged, encodeVideoRequested } from "../../lib/jobs/events";
import { streamRunOf } from "../../lib/media/stream-files";
import { newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { revert, writeBytes } from "../helpers/versions";
import { assetRow, fetchMedia, getAsset, makeClip, useVideoJobs, waitFor, waitForAsset, type VideoDeps } from "./helpers";

let deps: VideoDeps;
beforeAll(async () => {
  deps = await useVideoJobs();
});

type StreamInf = { attrs: Record<string, string>; uri: string };

/** The variants of a master playlist with their attributes (quoted values unquoted). */
function variantsOf(master: string): StreamInf[] {
  const lines = master.trim().split("\n");
  const out: StreamInf[] = [];
  lines.forEach((line, i) => {
    if (!line.startsWith("#EXT-X-STREAM-INF:")) return;
    const attrs: Record<string, string> = {};
    for (const m of line.slice(18).matchAll(/([A-Z-]+)=("[^"]*"|[^,]*)/g)) attrs[m[1]] = m[2].replace(/^"|"$/g, "");
    out.push({ attrs, uri: lines[i + 1] });
  });
  return out;
}

/**
 * Fetches the master playlist, every variant playlist, init segment and media segment through the
 * media route, exactly as a player resolves them; returns what it saw.
 */
async function walkStream(streamUrl: string) {
  const master = await fetchMedia(deps, streamUrl);
  expect(master.status).toBe(200);
  expect(master.headers.get("content-type")).toBe("application/vnd.apple.mpegurl");
  const masterText = await master.text();
  const variants = variantsOf(masterText);
  const renditions = [];
  for (const v of variants) {
    const playlistUrl = new URL(v.uri, streamUrl).href;
    const res = await fetchMedia(deps, playlistUrl);
    expect(res.status, playlistUrl).toBe(200);
    // Playlists follow the head; the files they name sit under the encode run's URL and never change.
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const playlist = parseMediaPlaylist(await res.text());
    const files = [playlist.map!, ...playlist.segments.map((s) => s.uri)].map((u) => new URL(u, playlistUrl).href);
    for (const file of files) {
      const seg = await fetchMedia(deps, file);
      expect(seg.status, file).toBe(200);
      expect(seg.headers.get("cache-control")).toMatch(/^max-age=\d+, immutable$/);
      expect(seg.headers.get("content-type")).toMatch(/^video\//);
      expect((await seg.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    renditions.push({ variant: v, playlistUrl, playlist, files });
  }
  return { masterText, variants, renditions };
}

describe("encode on upload (team plan)", () => {
  let ws: Workspace;
  let token: string;
  let board: { token: string; id: number };
  beforeAll(async () => {
    ws = await newWorkspace(deps.db, { plan: "team" });
    token = await newApiToken(deps.db, ws);
    board = await newBoard(deps.db, ws);
  });

  it("uploads, encodes a 240p/360p ladder, publishes stream_url and tells the webhooks", { timeout: 120_000 }, async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ size: "640x360", seconds: 6 }), { media_type: "video/mp4", collection_token: board.token });
    expect(asset).toMatchObject({ stream_url: null, encode_status: "none" });
    const row = await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready" || a.encodeStatus === "failed", "the encode");
    expect(row.encodeError).toBeNull();
    expect(row.encodeStatus).toBe("ready");

    const read = await getAsset(ws, token, asset.token);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ encode_status: "ready", width: 640, height: 360 });
    const streamUrl: string = read.body.data.stream_url;
    expect(streamUrl).toMatch(new RegExp(`/media/${asset.token}/stream\\?exp=\\d+&sig=`));
    // The poster: the display_url is the large thumbnail rendered from a frame of the video.
    expect(read.body.data.display_url).toContain("/display?");
    expect(read.body.data.thumbnails.map((t: { size: string }) => t.size)).toEqual(["small", "medium", "large"]);

    // The publish step sends asset_updated right after it sets the stream.
    const changed = await waitFor(() => deps.jobs.dataOf(assetChanged).filter((e) => e.assetId === asset.id && e.changes?.stream_url), (c) => c.length > 0);
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ kind: "asset_updated", changes: { stream_url: { old: null } } });
    expect(deps.jobs.dataOf(encodeVideoRequested).filter((e) => e.assetId === asset.id)).toHaveLength(1);

    const { masterText, variants, renditions } = await walkStream(streamUrl);
    expect(masterText.startsWith("#EXTM3U\n")).toBe(true);
    // Start variant first (360p), then the rest by bit rate.
    expect(variants.map((v) => v.attrs.RESOLUTION)).toEqual(["640x360", "426x240"]);
    for (const v of variants) {
      expect(Number(v.attrs.BANDWIDTH)).toBeGreaterThan(10_000);
      expect(v.attrs.CODECS).toMatch(/^avc1\.64[0-9a-f]{4},mp4a\.40\.2$/);
      expect(v.uri).toMatch(/^stream\/[0-9A-Z]{26}\/\d+p\/index\.m3u8\?exp=\d+&sig=/);
    }
    // Every rendition is complete, 4 s segments, cut at the same instants (keyframes aligned).
    const durations = renditions.map((r) => r.playlist.segments.map((s) => s.duration));
    expect(durations[0]).toEqual([4, 2]);
    expect(durations[1]).toEqual(durations[0]);
    expect(renditions.every((r) => r.playlist.ended)).toBe(true);
  });

  it("serves the stream with a board access token, carrying ?token= into every child URL, and refuses without", { timeout: 60_000 }, async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ seconds: 2 }), { media_type: "video/mp4", collection_token: board.token });
    await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready", "the encode");
    const boardToken = await newBoardToken(deps.db, ws, board.token);
    const streamUrl = `http://easel.test/media/${asset.token}/stream?token=${encodeURIComponent(boardToken)}`;
    const { variants, renditions } = await walkStream(streamUrl);
    expect(variants[0].uri).toBe(`stream/${streamRunOf((await assetRow(deps.db, asset.id)).streamKey!)}/180p/index.m3u8?token=${encodeURIComponent(boardToken)}`.replace(/%2E/g, "."));
    for (const r of renditions) for (const f of r.files) expect(new URL(f).searchParams.get("token")).toBe(boardToken);

    // No authorisation, another board's token, or a tampered signature: refused.
    const other = await newBoard(deps.db, ws);
    const otherToken = await newBoardToken(deps.db, ws, other.token);
    const segment = renditions[0].files[1];
    const bare = new URL(segment);
    bare.search = "";
    expect((await fetchMedia(deps, bare.href)).status).toBe(401);
    bare.searchParams.set("token", otherToken);
    expect((await fetchMedia(deps, bare.href)).status).toBe(401);
    expect((await fetchMedia(deps, `http://easel.test/media/${asset.token}/stream?exp=9999999999&sig=forged`)).status).toBe(401);
    // Names outside the stream folder are not reachable.
    expect((await fetchMedia(deps, `http://easel.test/media/${asset.token}/stream/..%2Flease.json?token=${boardToken}`)).status).toBe(404);
  });

  it("answers byte ranges of segments and revalidates the master playlist", { timeout: 60_000 }, async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ seconds: 2 }), { media_type: "video/mp4", collection_token: board.token });
    await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready", "the encode");
    const streamUrl = (await getAsset(ws, token, asset.token)).body.data.stream_url as string;
    const master = await fetchMedia(deps, streamUrl);
    expect(master.headers.get("cache-control")).toBe("no-cache");
    const etag = master.headers.get("etag")!;
    expect((await fetchMedia(deps, streamUrl, { "if-none-match": etag })).status).toBe(304);
    const { renditions } = await walkStream(streamUrl);
    const segment = renditions[0].files[1];
    const whole = await (await fetchMedia(deps, segment)).arrayBuffer();
    const part = await fetchMedia(deps, segment, { range: "bytes=10-99" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 10-99/${whole.byteLength}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(whole).subarray(10, 100))).toBe(true);
  });

  it("re-encodes after a version write with new bytes, and the old stream stops being served", { timeout: 120_000 }, async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ seconds: 2 }), { media_type: "video/mp4", collection_token: board.token });
    const first = await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready", "the first encode");
    const oldUrl = (await getAsset(ws, token, asset.token)).body.data.stream_url as string;
    const res = await writeBytes(ws, token, deps.store.s3, asset.token, makeClip({ size: "426x240", seconds: 2, audio: false }), { media_type: "video/mp4" });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ stream_url: null, encode_status: "none" });
    const second = await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready" && a.streamKey !== first.streamKey, "the re-encode");
    expect(second.streamKey!.startsWith(`${second.storageKey}.hls/`)).toBe(true);
    // The link handed out before names the asset: it now serves the new stream (no audio, 240p).
    const { variants, renditions } = await walkStream(oldUrl);
    expect(variants.map((v) => [v.attrs.RESOLUTION, v.attrs.CODECS.includes("mp4a")])).toEqual([["426x240", false]]);
    // Under the new run's URLs: no URL of the first stream is reused for the new bytes.
    expect(renditions[0].playlistUrl).toContain(`/stream/${streamRunOf(second.streamKey!)}/`);
    expect(streamRunOf(second.streamKey!)).not.toBe(streamRunOf(first.streamKey!));
  });

  it("after a revert to other bytes (no processing runs), a read starts the encode of the restored video", { timeout: 120_000 }, async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ size: "426x240", seconds: 2 }), { media_type: "video/mp4", collection_token: board.token });
    await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready", "the first encode");
    expect((await writeBytes(ws, token, deps.store.s3, asset.token, makeClip({ seconds: 2 }), { media_type: "video/mp4" })).status).toBe(200);
    await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready" && a.media.width === 320, "the second encode");
    const reverted = await revert(ws, token, asset.token, { version_number: 1 });
    expect(reverted.status, reverted.text).toBe(200);
    expect(reverted.body.data).toMatchObject({ stream_url: null, encode_status: "none", width: 426 });
    expect((await getAsset(ws, token, asset.token)).body.data.encode_status).toBe("queued");
    await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready", "the encode of the restored bytes");
    const { variants } = await walkStream((await getAsset(ws, token, asset.token)).body.data.stream_url);
    expect(variants.map((v) => v.attrs.RESOLUTION)).toEqual(["426x240"]);
  });
});

describe("encode on first read (free plan)", () => {
  it("does not encode on upload; GET starts the encode once, and stream_url fills in", { timeout: 120_000 }, async () => {
    const ws = await newWorkspace(deps.db, { plan: "free" });
    const token = await newApiToken(deps.db, ws);
    const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ size: "640x360", seconds: 3 }), { media_type: "video/mp4" });
    // Processing ran (thumbnails), and queued nothing.
    await waitForAsset(deps.db, asset.id, (a) => a.thumbnails.length === 3, "processing");
    expect((await assetRow(deps.db, asset.id)).encodeStatus).toBe("none");
    expect(deps.jobs.dataOf(encodeVideoRequested).filter((e) => e.assetId === asset.id)).toHaveLength(0);

    const first = await getAsset(ws, token, asset.token);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ stream_url: null, encode_status: "queued" });
    const again = await getAsset(ws, token, asset.token);
    expect(["queued", "processing", "ready"]).toContain(again.body.data.encode_status);
    expect(deps.jobs.dataOf(encodeVideoRequested).filter((e) => e.assetId === asset.id)).toHaveLength(1);

    await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready", "the encode");
    const done = await getAsset(ws, token, asset.token);
    expect(done.body.data.stream_url).toMatch(/\/stream\?exp=/);
    const { variants } = await walkStream(done.body.data.stream_url);
    expect(variants.map((v) => v.attrs.RESOLUTION).sort()).toEqual(["426x240", "640x360"]);
    expect(deps.jobs.dataOf(encodeVideoRequested).filter((e) => e.assetId === asset.id)).toHaveLength(1);
  });

  it("does not start an encode for images, for workspaces with streaming off, or again after a failure", async () => {
    const ws = await newWorkspace(deps.db, { plan: "pro" });
    const token = await newApiToken(deps.db, ws);
    const before = deps.jobs.dataOf(encodeVideoRequested).length;
    const png = await uploadAsset(ws, token, deps.store.s3, Buffer.from("89504e470d0a1a0a", "hex"), { media_type: "image/png" });
    expect((await getAsset(ws, token, png.asset.token)).body.data.encode_status).toBe("none");
    const { asset } = await uploadAsset(ws, token, deps.store.s3, Buffer.from("not really a video"), { media_type: "video/mp4" });
    const { assets } = await import("../../lib/db/schema");
    const { eq } = await import("drizzle-orm");
    await deps.db.update(assets).set({ encodeStatus: "failed", encodeError: "unreadable_source" }).where(eq(assets.id, asset.id));
    expect((await getAsset(ws, token, asset.token)).body.data.encode_status).toBe("failed");
    const { workspaces } = await import("../../lib/db/schema");
    await deps.db.update(workspaces).set({ streamingEnabled: false }).where(eq(workspaces.id, ws.id));
    await deps.db.update(assets).set({ encodeStatus: "none", encodeError: null }).where(eq(assets.id, asset.id));
    expect((await getAsset(ws, token, asset.token)).body.data.encode_status).toBe("none");
    expect(deps.jobs.dataOf(encodeVideoRequested).length).toBe(before);
  });
});
