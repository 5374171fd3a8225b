import sharp from "sharp";
import { beforeAll, expect, it } from "vitest";
import { spriteGrid } from "../../lib/encode/storyboard-plan";
import { newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { writeBytes } from "../helpers/versions";
import { assetRow, fetchMedia, getAsset, makeClip, useVideoJobs, waitForAsset, type VideoDeps } from "./helpers";

let deps: VideoDeps;
beforeAll(async () => {
  deps = await useVideoJobs();
});

type Cue = { start: number; end: number; url: string; xywh: number[] };

const seconds = (stamp: string) => stamp.split(":").reduce((t, part) => t * 60 + Number(part), 0);

/** The cues of a WebVTT thumbnails track, as a player reads them. */
function cuesOf(track: string): Cue[] {
  expect(track.startsWith("WEBVTT")).toBe(true);
  const cues: Cue[] = [];
  const lines = track.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\S+) --> (\S+)$/.exec(lines[i]);
    if (!m) continue;
    const [url, fragment] = lines[i + 1].split("#xywh=");
    cues.push({ start: seconds(m[1]), end: seconds(m[2]), url, xywh: fragment.split(",").map(Number) });
  }
  return cues;
}

/** A media URL authorised by a board access token instead of its signature. */
const withToken = (url: string, token: string) => {
  const u = new URL(url);
  u.searchParams.delete("exp");
  u.searchParams.delete("sig");
  u.searchParams.set("token", token);
  return u.toString();
};

it("an encode writes a storyboard: cues cover the duration, each names a tile of the sprite, by signed link or board token", { timeout: 180_000 }, async () => {
  const ws = await newWorkspace(deps.db, { plan: "enterprise" });
  const token = await newApiToken(deps.db, ws);
  const board = await newBoard(deps.db, ws);
  const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ size: "320x180", seconds: 7, audio: false }), { media_type: "video/mp4", collection_token: board.token });
  const ready = await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready", "the encode", 120_000);
  expect(ready.storyboardKey).toBe(`${ready.streamKey!.slice(0, ready.streamKey!.lastIndexOf("/"))}/storyboard.vtt`);
  const read = await getAsset(ws, token, asset.token);
  const storyboardUrl: string = read.body.data.storyboard_url;
  expect(storyboardUrl).toMatch(new RegExp(`/media/${asset.token}/storyboard\\?exp=\\d+&sig=`));

  // ---- the track, by signed link: no-cache with an ETag, 304 on a match
  const track = await fetchMedia(deps, storyboardUrl);
  expect(track.status).toBe(200);
  expect(track.headers.get("content-type")).toMatch(/^text\/vtt/);
  expect(track.headers.get("cache-control")).toBe("no-cache");
  const etag = track.headers.get("etag")!;
  expect(etag).toBeTruthy();
  expect((await fetchMedia(deps, storyboardUrl, { "if-none-match": etag })).status).toBe(304);
  const cues = cuesOf(await track.text());

  // 7 s, a tile a second: cues from 0 to the end of the video, none missing, none overlapping.
  expect(cues.length).toBe(7);
  expect(cues[0].start).toBe(0);
  for (let i = 1; i < cues.length; i++) expect(cues[i].start).toBe(cues[i - 1].end);
  expect(cues[cues.length - 1].end).toBeCloseTo(ready.media.durationSeconds!, 2);

  // ---- the sprite: one URL for every cue, under the run's name, kept by caches; tiles inside it
  const spriteUrls = new Set(cues.map((c) => c.url));
  expect(spriteUrls.size).toBe(1);
  const spriteUrl = new URL([...spriteUrls][0], storyboardUrl).toString();
  const run = ready.streamKey!.split("/").slice(-2)[0];
  expect(new URL(spriteUrl).pathname).toBe(`/media/${asset.token}/storyboard/${run}/storyboard.jpg`);
  const sprite = await fetchMedia(deps, spriteUrl);
  expect(sprite.status).toBe(200);
  expect(sprite.headers.get("content-type")).toBe("image/jpeg");
  expect(sprite.headers.get("cache-control")).toMatch(/^max-age=\d+, immutable$/);
  const meta = await sharp(Buffer.from(await sprite.arrayBuffer())).metadata();
  const { columns, rows } = spriteGrid(cues.length);
  expect([meta.width, meta.height]).toEqual([columns * 160, rows * 90]);
  for (const [i, c] of cues.entries()) expect(c.xywh).toEqual([(i % columns) * 160, Math.floor(i / columns) * 90, 160, 90]);

  // ---- the same with a board access token: the track's sprite URLs carry the token
  const boardToken = await newBoardToken(deps.db, ws, board.token);
  const byToken = await fetchMedia(deps, withToken(storyboardUrl, boardToken));
  expect(byToken.status).toBe(200);
  const tokenSprite = new URL(cuesOf(await byToken.text())[0].url, storyboardUrl);
  expect(tokenSprite.searchParams.get("token")).toBe(boardToken);
  expect(tokenSprite.searchParams.has("sig")).toBe(false);
  expect((await fetchMedia(deps, tokenSprite.toString())).status).toBe(200);
  // Without an authorisation, or with another board's token, nothing.
  const bare = new URL(spriteUrl);
  bare.search = "";
  expect((await fetchMedia(deps, bare.toString())).status).toBe(401);
  const other = await newBoard(deps.db, ws);
  expect((await fetchMedia(deps, withToken(spriteUrl, await newBoardToken(deps.db, ws, other.token)))).status).toBe(401);

  // ---- a new version's encode replaces the storyboard; the old run's sprite answers 404
  const write = await writeBytes(ws, token, deps.store.s3, asset.token, makeClip({ size: "320x240", seconds: 3, audio: false }), { media_type: "video/mp4" });
  expect(write.status, write.text).toBe(200);
  const next = await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready" && a.streamKey !== ready.streamKey, "the new version's encode", 120_000);
  expect(next.storyboardKey).not.toBe(ready.storyboardKey);
  expect((await fetchMedia(deps, spriteUrl)).status).toBe(404);
  // The handed-out track link follows the head: 3 s of 4:3 now.
  const again = await fetchMedia(deps, storyboardUrl, { "if-none-match": etag });
  expect(again.status).toBe(200);
  const newCues = cuesOf(await again.text());
  expect(newCues.length).toBe(3);
  expect(newCues[0].xywh).toEqual([0, 0, 160, 120]);
  expect(new URL(newCues[0].url, storyboardUrl).pathname).not.toBe(new URL(spriteUrl).pathname);
  expect((await assetRow(deps.db, asset.id)).storyboardKey).toBe(next.storyboardKey);
});

it("a storyboard path of another name, or a version's, names nothing", { timeout: 60_000 }, async () => {
  const ws = await newWorkspace(deps.db, { plan: "enterprise" });
  const token = await newApiToken(deps.db, ws);
  const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ seconds: 2, audio: false }), { media_type: "video/mp4" });
  const ready = await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready", "the encode", 120_000);
  const url = new URL((await getAsset(ws, token, asset.token)).body.data.storyboard_url);
  const run = ready.streamKey!.split("/").slice(-2)[0];
  for (const rest of [`storyboard/${run}/master.m3u8`, `storyboard/${run}/storyboard.vtt`, "storyboard/storyboard.jpg", `storyboard/${run}/../lease.json`]) {
    const u = new URL(url);
    u.pathname = `/media/${asset.token}/${rest}`;
    expect((await fetchMedia(deps, u.toString())).status, rest).toBe(404);
  }
});
