import { beforeAll, describe, expect, it } from "vitest";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import type { Workspace } from "../../lib/db/schema";
import { leaseKey, streamRoot } from "../../lib/encode/keys";
import { deleteStream, rungNamesOf } from "../../lib/encode/outputs";
import { call } from "../helpers/call-route";
import { newApiToken, newBoard, newWorkspace } from "../helpers/factories";
import { testStores, type TestStorage } from "../helpers/test-storage";
import { prepare, uploadAsset } from "../helpers/uploads";
import { patch, revert } from "../helpers/versions";
import { assetRow, fetchMedia, getAsset, makeClip, useVideoJobs, waitForAsset, type VideoDeps } from "./helpers";

let deps: VideoDeps;
beforeAll(async () => {
  deps = await useVideoJobs();
});

/** Every stored key under the stream root of these bytes (`<original>.hls/`), sorted. */
const streamFiles = (storageKey: string) => deps.store.s3.keys(`${streamRoot(storageKey)}/`);

/**
 * The stream of these bytes once its encode run is over: the run marks the asset ready, then gives
 * its lease up, so a test that saw "ready" waits (up to 10 s) for the lease to go before listing.
 */
async function publishedStream(storageKey: string): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  while (await deps.store.s3.has(leaseKey(storageKey))) {
    if (Date.now() > deadline) throw new Error(`the encode run's lease on ${storageKey} was not released`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return streamFiles(storageKey);
}

/** A lease as a run leaves it: `until` relative to the app's clock. */
const putLease = (storageKey: string, runId: string, untilFromNow: number) =>
  deps.store.s3.put(leaseKey(storageKey), Buffer.from(JSON.stringify({ runId, until: deps.clock().getTime() + untilFromNow })), "application/json");

/** The master playlist and each listed rendition's playlist, init segment and first segment are stored. */
async function expectCompleteStream(streamKey: string, files: string[]) {
  const dir = streamKey.slice(0, streamKey.lastIndexOf("/"));
  expect(await deps.store.s3.has(streamKey), streamKey).toBe(true);
  const rungs = rungNamesOf((await deps.store.s3.bytes(streamKey)).toString());
  expect(rungs.length).toBeGreaterThan(0);
  for (const rung of rungs) for (const name of ["index.m3u8", "init.mp4", "seg_00000.m4s"]) expect(files).toContain(`${dir}/${rung}/${name}`);
}

describe("deleteStream", () => {
  const fakeStream = async (storage: TestStorage, dir: string, rungs: Record<string, number>, master: string | null) => {
    if (master !== null) await storage.put(`${dir}/master.m3u8`, Buffer.from(master));
    for (const [rung, segments] of Object.entries(rungs)) {
      await storage.put(`${dir}/${rung}/index.m3u8`, Buffer.from("#EXTM3U\n"));
      await storage.put(`${dir}/${rung}/init.mp4`, Buffer.from("init"));
      for (let n = 0; n < segments; n++) await storage.put(`${dir}/${rung}/seg_${String(n).padStart(5, "0")}.m4s`, Buffer.from("seg"));
    }
  };
  const masterOf = (...uris: string[]) => ["#EXTM3U", "#EXT-X-VERSION:7", ...uris.flatMap((u) => ["#EXT-X-STREAM-INF:BANDWIDTH=1", u]), ""].join("\n");

  it("reads the rungs from the master playlist and deletes every file of each, leaving other folders alone", async () => {
    const storage = testStores(deps.db, deps.clock).s3; // a store of its own: every key in it is this test's
    await fakeStream(storage, "a.mp4.hls/RUN1", { "240p": 3, "540p": 12 }, masterOf("540p/index.m3u8", "240p/index.m3u8"));
    await fakeStream(storage, "a.mp4.hls/RUN2", { "240p": 2 }, masterOf("240p/index.m3u8"));
    await storage.put("a.mp4", Buffer.from("original"));
    await deleteStream(storage, "a.mp4.hls/RUN1/master.m3u8");
    expect(await storage.keys()).toEqual(
      ["a.mp4", "a.mp4.hls/RUN2/240p/index.m3u8", "a.mp4.hls/RUN2/240p/init.mp4", "a.mp4.hls/RUN2/240p/seg_00000.m4s", "a.mp4.hls/RUN2/240p/seg_00001.m4s", "a.mp4.hls/RUN2/master.m3u8"].sort(),
    );
  });

  it("without a readable master playlist deletes the standard rungs; missing files are not errors", async () => {
    const storage = testStores(deps.db, deps.clock).s3;
    await fakeStream(storage, "b.mp4.hls/RUN", { "240p": 2, "360p": 1, "540p": 1 }, null);
    await storage.put("b.mp4.hls/RUN/360p/seg_00000.m4s", Buffer.from("x"));
    await deleteStream(storage, "b.mp4.hls/RUN/master.m3u8");
    // 540p is a custom top rung: without the master playlist nothing names it.
    expect(await storage.keys()).toEqual(["b.mp4.hls/RUN/540p/index.m3u8", "b.mp4.hls/RUN/540p/init.mp4", "b.mp4.hls/RUN/540p/seg_00000.m4s"]);
    await expect(deleteStream(storage, "nothing.hls/RUN/master.m3u8")).resolves.toBeUndefined();
  });

  it("names only `<rung>/index.m3u8` lines of a master playlist", () => {
    expect(rungNamesOf(masterOf("360p/index.m3u8", "../x/index.m3u8", "240p/other.m3u8", "720p/index.m3u8", "360p/index.m3u8"))).toEqual(["360p", "720p"]);
  });
});

describe("stream files are deleted with what replaces them (team plan)", () => {
  let ws: Workspace;
  let token: string;
  let board: { token: string };
  beforeAll(async () => {
    ws = await newWorkspace(deps.db, { plan: "team" });
    token = await newApiToken(deps.db, ws);
    board = await newBoard(deps.db, ws);
  });

  it("deleting an asset deletes every file of its stream and its lease", { timeout: 120_000 }, async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ size: "640x360", seconds: 2 }), { media_type: "video/mp4", collection_token: board.token });
    const row = await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready" || a.encodeStatus === "failed", "the encode");
    expect(row.encodeStatus).toBe("ready");
    const files = await publishedStream(row.storageKey);
    await expectCompleteStream(row.streamKey!, files);
    expect(rungNamesOf((await deps.store.s3.bytes(row.streamKey!)).toString()).sort()).toEqual(["240p", "360p"]);
    // A lease left by a run that died.
    await putLease(row.storageKey, "dead-run", -60_000);

    const res = await call(assetRoute.DELETE, { method: "DELETE", path: `/v1/${ws.slug}/assets/${asset.token}`, token, params: { slug: ws.slug, token: asset.token } });
    expect(res.status, res.text).toBeLessThan(300);
    expect(await assetRow(deps.db, asset.id)).toBeUndefined();
    expect(await streamFiles(row.storageKey)).toEqual([]);
    expect(await deps.store.s3.has(row.storageKey)).toBe(false);
  });

  it("a checkpoint, a revert to the same bytes and a retried write keep the stream; new bytes or a revert to other bytes delete the old one", { timeout: 240_000 }, async () => {
    // ---- bytes A, encoded
    const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ seconds: 2 }), { media_type: "video/mp4", collection_token: board.token });
    const a = await waitForAsset(deps.db, asset.id, (r) => r.encodeStatus === "ready" || r.encodeStatus === "failed", "the encode of A");
    expect(a.encodeStatus).toBe("ready");
    const streamA = await publishedStream(a.storageKey);
    await expectCompleteStream(a.streamKey!, streamA);

    // ---- metadata-only checkpoint (v1 = A): same bytes, same stream
    const checkpoint = await patch(ws, token, asset.token, { create_version: true, title: "Renamed" });
    expect(checkpoint.status, checkpoint.text).toBe(200);
    expect(await assetRow(deps.db, asset.id)).toMatchObject({ nextVersionNumber: 2, streamKey: a.streamKey, encodeStatus: "ready" });
    expect(await streamFiles(a.storageKey)).toEqual(streamA);

    // ---- revert to v1: the same bytes, the stream stays (v2 = A)
    const same = await revert(ws, token, asset.token, { version_number: 1 });
    expect(same.status, same.text).toBe(200);
    expect(await assetRow(deps.db, asset.id)).toMatchObject({ storageKey: a.storageKey, streamKey: a.streamKey, encodeStatus: "ready" });
    expect(await streamFiles(a.storageKey)).toEqual(streamA);

    // ---- new bytes B (v3 = A): A's stream, and a lease a dead run left on A, are gone once the write answers
    await putLease(a.storageKey, "dead-run", -60_000);
    const clipB = makeClip({ size: "426x240", seconds: 2, audio: false });
    const p = await prepare(ws, token, { media_type: "video/mp4", size: clipB.length });
    expect(p.status, p.text).toBe(200);
    await deps.store.s3.send(p.body.data, clipB);
    const writeB = () => patch(ws, token, asset.token, { create_version: true, signed_storage_id: p.body.data.signed_storage_id, media_type: "video/mp4" });
    const wrote = await writeB();
    expect(wrote.status, wrote.text).toBe(200);
    expect(wrote.body.data).toMatchObject({ stream_url: null, encode_status: "none" });
    expect(await streamFiles(a.storageKey)).toEqual([]);
    expect(await deps.store.s3.has(a.storageKey)).toBe(true);

    // The new bytes encode and publish as usual, and the stream plays through the media route.
    const b = await waitForAsset(deps.db, asset.id, (r) => r.storageKey !== a.storageKey && (r.encodeStatus === "ready" || r.encodeStatus === "failed"), "the encode of B");
    expect(b.encodeStatus).toBe("ready");
    const streamB = await publishedStream(b.storageKey);
    await expectCompleteStream(b.streamKey!, streamB);
    const master = await fetchMedia(deps, (await getAsset(ws, token, asset.token)).body.data.stream_url);
    expect(master.status).toBe(200);
    expect(await master.text()).toContain("240p/index.m3u8");

    // ---- the same write again (a retry): nothing is written, B's stream stays
    const again = await writeB();
    expect(again.status, again.text).toBe(200);
    expect(await assetRow(deps.db, asset.id)).toMatchObject({ storageKey: b.storageKey, streamKey: b.streamKey, encodeStatus: "ready", nextVersionNumber: 4 });
    expect(await streamFiles(b.storageKey)).toEqual(streamB);

    // ---- revert to v3 (A): B's stream is deleted; a live lease on B (a run still encoding B) is left to that run
    await putLease(b.storageKey, "running-run", 60_000);
    const other = await revert(ws, token, asset.token, { version_number: 3 });
    expect(other.status, other.text).toBe(200);
    expect(other.body.data).toMatchObject({ stream_url: null, encode_status: "none" });
    expect(await streamFiles(b.storageKey)).toEqual([leaseKey(b.storageKey)]);
    // The retried revert changes nothing and deletes nothing.
    expect((await revert(ws, token, asset.token, { version_number: 3 })).status).toBe(200);
    expect(await streamFiles(b.storageKey)).toEqual([leaseKey(b.storageKey)]);
    await deps.store.s3.remove(leaseKey(b.storageKey));

    // A's bytes are encoded again into a new folder (a read starts it), and that stream is complete.
    expect((await getAsset(ws, token, asset.token)).body.data.encode_status).toBe("queued");
    const restoredRow = await waitForAsset(deps.db, asset.id, (r) => r.encodeStatus === "ready" || r.encodeStatus === "failed", "the encode of the restored A");
    expect(restoredRow.encodeStatus).toBe("ready");
    expect(restoredRow.streamKey).not.toBe(a.streamKey);
    const restored = await publishedStream(a.storageKey);
    await expectCompleteStream(restoredRow.streamKey!, restored);
    expect(restored.every((k) => k.startsWith(restoredRow.streamKey!.slice(0, restoredRow.streamKey!.lastIndexOf("/") + 1)))).toBe(true);
  });
});
