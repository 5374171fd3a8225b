import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as retryRoute from "../../app/v1/[slug]/assets/[token]/retry_video_processing/route";
import { assets, eventOutbox, workspaces, type EncodeStatus, type Workspace } from "../../lib/db/schema";
import { encodeVideoRequested } from "../../lib/jobs/events";
import { deliver } from "../../lib/jobs/outbox";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";
import { assetRow, retryEncode } from "./helpers";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let token: string;
beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db, { plan: "free" });
  token = await newApiToken(deps.db, ws);
});

async function video(status: EncodeStatus, extra: { streamKey?: string | null; encodeError?: string | null; mediaType?: string; media?: Record<string, unknown> } = {}, inWs = ws) {
  const a = await insertAsset(deps.db, inWs, { mediaType: extra.mediaType ?? "video/mp4", media: extra.media ?? {} });
  await deps.db.update(assets).set({ encodeStatus: status, streamKey: extra.streamKey ?? null, encodeError: extra.encodeError ?? null }).where(eq(assets.id, a.id));
  return a;
}

const queuedFor = (id: number) => deps.jobs.dataOf(encodeVideoRequested).filter((e) => e.assetId === id).length;
const codeOf = (res: { body: { errors: { extensions: { code: string } }[] } }) => res.body.errors[0].extensions.code;

describe("POST /v1/:slug/assets/:token/retry_video_processing", () => {
  it("401 without a token, 403 for a board access token or a read-only token, 404 for another workspace's asset, 405 for GET", async () => {
    const a = await video("failed");
    expect((await retryEncode(ws, null, a.token)).status).toBe(401);
    const board = await newBoard(deps.db, ws);
    const boardToken = await newBoardToken(deps.db, ws, board.token);
    const asBoard = await retryEncode(ws, boardToken, a.token);
    expect([asBoard.status, codeOf(asBoard)]).toEqual([403, "board_scoped_token"]);
    const readOnly = await retryEncode(ws, await newApiToken(deps.db, ws, { scopes: ["read"] }), a.token);
    expect([readOnly.status, codeOf(readOnly)]).toEqual([403, "insufficient_scope"]);
    const other = await newWorkspace(deps.db, { plan: "free" });
    const foreign = await retryEncode(other, await newApiToken(deps.db, other), a.token);
    expect([foreign.status, codeOf(foreign)]).toEqual([404, "asset_not_found"]);
    const get = await call(retryRoute.GET, { path: `/v1/${ws.slug}/assets/${a.token}/retry_video_processing`, token, params: { slug: ws.slug, token: a.token } });
    expect([get.status, codeOf(get), get.headers.get("allow")]).toEqual([405, "method_not_allowed", "POST"]);
    expect(queuedFor(a.id)).toBe(0);
  });

  it("422 not_a_video for an image, and for an audio-only file the probe found no picture in", async () => {
    const image = await video("none", { mediaType: "image/png" });
    const r1 = await retryEncode(ws, token, image.token);
    expect([r1.status, codeOf(r1)]).toEqual([422, "not_a_video"]);
    const audioOnly = await video("none", { media: { durationSeconds: 3, hasAudio: true } });
    const r2 = await retryEncode(ws, token, audioOnly.token);
    expect([r2.status, codeOf(r2)]).toEqual([422, "not_a_video"]);
    expect(queuedFor(image.id) + queuedFor(audioOnly.id)).toBe(0);
  });

  it("422 encode_already_finished once a stream is published", async () => {
    const a = await video("ready", { streamKey: "ws/x/originals/k.hls/RUN/master.m3u8" });
    const res = await retryEncode(ws, token, a.token);
    expect([res.status, codeOf(res)]).toEqual([422, "encode_already_finished"]);
    expect(queuedFor(a.id)).toBe(0);
  });

  it("422 streaming_not_available when the workspace has streaming turned off", async () => {
    const off = await newWorkspace(deps.db, { plan: "team" });
    await deps.db.update(workspaces).set({ streamingEnabled: false }).where(eq(workspaces.id, off.id));
    const a = await video("failed", {}, off);
    const res = await retryEncode(off, await newApiToken(deps.db, off), a.token);
    expect([res.status, codeOf(res)]).toEqual([422, "streaming_not_available"]);
    expect(queuedFor(a.id)).toBe(0);
  });

  it("200 queues an encode that was never made, and one that failed (its error cleared)", async () => {
    const never = await video("none");
    const r1 = await retryEncode(ws, token, never.token);
    expect(r1.status).toBe(200);
    expect(r1.body.data).toMatchObject({ token: never.token, encode_status: "queued", stream_url: null });
    const failed = await video("failed", { encodeError: "encode_failed" });
    const r2 = await retryEncode(ws, token, failed.token);
    expect([r2.status, r2.body.data.encode_status]).toEqual([200, "queued"]);
    expect((await assetRow(deps.db, failed.id)).encodeError).toBeNull();
    expect([queuedFor(never.id), queuedFor(failed.id)]).toEqual([1, 1]);
  });

  it("200 while an encode is queued or running (or died there): every call queues another job, the status stays", async () => {
    const running = await video("processing");
    const queued = await video("queued");
    for (let i = 0; i < 2; i++) {
      const r1 = await retryEncode(ws, token, running.token);
      expect([r1.status, r1.body.data.encode_status]).toEqual([200, "processing"]);
      const r2 = await retryEncode(ws, token, queued.token);
      expect([r2.status, r2.body.data.encode_status]).toEqual([200, "queued"]);
    }
    expect([queuedFor(running.id), queuedFor(queued.id)]).toEqual([2, 2]);
  });

  it("the job system unreachable: 200 queued all the same; the stored request goes out once it is back (lib/jobs/outbox)", async () => {
    const a = await video("failed", { encodeError: "encode_failed" });
    const send = deps.jobs.send;
    deps.jobs.send = async () => {
      throw new Error("event store down");
    };
    try {
      const res = await retryEncode(ws, token, a.token);
      expect([res.status, res.body.data.encode_status]).toEqual([200, "queued"]);
      expect(queuedFor(a.id)).toBe(0);
    } finally {
      deps.jobs.send = send;
    }
    expect(await assetRow(deps.db, a.id)).toMatchObject({ encodeStatus: "queued", encodeError: null });
    // Kept in the outbox; handed on by the relay (here its hand-off of this row, by id: other files share the database).
    const kept = await deps.db.select().from(eventOutbox).where(sql`${eventOutbox.data}->>'assetId' = ${String(a.id)}`);
    expect(kept.map((r) => [r.name, r.attempts, r.lastError])).toEqual([["encode/video.requested", 1, "event store down"]]);
    expect(await deliver(deps, { ids: kept.map((r) => r.id) })).toMatchObject({ handed: 1, failed: 0 });
    expect(queuedFor(a.id)).toBe(1);
  });
});
