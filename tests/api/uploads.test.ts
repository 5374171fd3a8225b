import crypto from "node:crypto";
import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import * as boardAssetsRoute from "../../app/v1/[slug]/boards/[boardToken]/assets/route";
import { assets, type Workspace } from "../../lib/db/schema";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError, expectValidation } from "../helpers/envelopes";
import { MiB, md5hex, newApiToken, newBoard, newBoardToken, newWorkspace, randomPng } from "../helpers/factories";
import { complete, keyOf, prepare, uploadAsset } from "../helpers/uploads";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let gcs: Workspace;
let rw: string;
let gcsToken: string;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db, { plan: "team" });
  gcs = await newWorkspace(deps.db, { plan: "team", storage: "gcs" });
  rw = await newApiToken(deps.db, ws);
  gcsToken = await newApiToken(deps.db, gcs);
});

const assetCount = async (w: Workspace) => (await deps.db.select({ n: count() }).from(assets).where(eq(assets.workspaceId, w.id)))[0].n;
const getAsset = (token: string) => call(assetRoute.GET, { path: `/v1/${ws.slug}/assets/${token}`, token: rw, params: { slug: ws.slug, token } });

describe("upload_prepare", () => {
  it("answers a single presigned PUT below 5 MiB and multipart at 5 MiB", async () => {
    const small = await prepare(ws, rw, { title: "a", media_type: "image/png", size: 4_999_999 });
    expect(small.body.data).toMatchObject({ storage_provider: "s3", multipart_upload_id: null, part_size: null, part_urls: null });
    expect(Date.parse(small.body.data.expires_at) - Date.now()).toBeGreaterThan(23 * 3600e3);
    const at = await prepare(ws, rw, { title: "a", media_type: "application/octet-stream", size: 5 * MiB });
    expect(at.body.data.part_size).toBe(8 * MiB);
    expect(at.body.data.part_urls).toHaveLength(1);
    const big = await prepare(ws, rw, { title: "a", media_type: "application/octet-stream", size: 5 * 1024 * MiB });
    expect(big.body.data.part_urls).toHaveLength(640);
    const g = await prepare(gcs, gcsToken, { title: "a", media_type: "image/png", size: 12 * MiB });
    expect(g.body.data).toMatchObject({ storage_provider: "gcs", multipart_upload_id: null });
  });

  it("validates size, media_type, md5 and the board", async () => {
    for (const size of [0, -5, "big", 1.5]) expectValidation(await prepare(ws, rw, { media_type: "image/png", size }), "size");
    expectError(await prepare(ws, rw, { media_type: "application/octet-stream", size: 5 * 1024 * MiB + 1 }), 413, "payload_too_large");
    expectValidation(await prepare(ws, rw, { media_type: "png", size: 10 }), "media_type");
    const b = crypto.randomBytes(10);
    for (const md5 of [crypto.createHash("md5").update(b).digest("base64"), md5hex(b).slice(1), `${md5hex(b)}0`, "g".repeat(32), 12345]) {
      expectValidation(await prepare(ws, rw, { media_type: "image/png", size: 10, md5 }), "md5");
    }
    expectError(await prepare(ws, rw, { media_type: "image/png", size: 10, collection_token: "nosuchboard" }), 404, "board_not_found");
  });

  it("ladder: 401, 403 scope, 403 board token, 404 other workspace", async () => {
    const body = { media_type: "image/png", size: 10 };
    expectError(await prepare(ws, null, body), 401, "unauthenticated");
    expectError(await prepare(ws, await newApiToken(deps.db, ws, { scopes: ["read"] }), body), 403, "insufficient_scope");
    const board = await newBoard(deps.db, ws);
    expectError(await prepare(ws, await newBoardToken(deps.db, ws, board.token), body), 403, "board_scoped_token");
    expectError(await prepare(ws, gcsToken, body), 404, "workspace_not_found");
  });
});

describe("upload_complete", () => {
  it("creates the asset with every field, and emits asset_added and processing", async () => {
    deps.jobs.clear();
    const bytes = await randomPng();
    const p = await prepare(ws, rw, { title: "Sunset", media_type: "image/png", size: bytes.length });
    await deps.store.s3.send(p.body.data, bytes);
    const c = await complete(ws, rw, { signed_storage_id: p.body.data.signed_storage_id, description: "by the sea" });
    expect(c.status).toBe(200);
    expect(c.body.data).toMatchObject({ title: "Sunset", description: "by the sea", media_type: "image/png", size: bytes.length, md5: md5hex(bytes), head_version_number: 1, boards: [], tags: [], fields: {}, stream_url: null, encode_status: "none" });
    expect(c.body.data.primary_storage_id).toBe(keyOf(p.body.data.upload_url));
    expect(c.body.data.display_url).toMatch(/^http:\/\/easel\.test\/media\//);
    // One of each; the relay hands a write's events on in no promised order.
    expect(deps.jobs.sent.map((e) => e.name).sort()).toEqual(["asset/changed", "asset/processing.requested"]);
    expect(deps.jobs.sent.find((e) => e.name === "asset/changed")!.data).toMatchObject({ kind: "asset_added", assetId: c.body.data.id, workspaceId: ws.id });
    expect((await getAsset(c.body.data.token)).body.data.token).toBe(c.body.data.token);
  });

  it("places the asset on collection_token's board", async () => {
    const board = await newBoard(deps.db, ws);
    const { asset } = await uploadAsset(ws, rw, deps.store.s3, await randomPng(), { collection_token: board.token });
    expect(asset.boards).toEqual([board.token]);
    const listed = await call(boardAssetsRoute.GET, { path: `/v1/${ws.slug}/boards/${board.token}/assets`, token: rw, params: { slug: ws.slug, boardToken: board.token } });
    expect(listed.body.data.map((a: { token: string }) => a.token)).toEqual([asset.token]);
  });

  it("is idempotent, also when completions race", async () => {
    const bytes = await randomPng();
    const p = await prepare(ws, rw, { media_type: "image/png", size: bytes.length });
    await deps.store.s3.send(p.body.data, bytes);
    const before = await assetCount(ws);
    const results = await Promise.all(Array.from({ length: 5 }, () => complete(ws, rw, { signed_storage_id: p.body.data.signed_storage_id })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(results.map((r) => r.body.data.token)).size).toBe(1);
    expect(await assetCount(ws)).toBe(before + 1);
  });

  it("refuses tampered, garbage, foreign and expired ids with 422 and creates nothing", async () => {
    const bytes = await randomPng();
    const p = await prepare(ws, rw, { media_type: "image/png", size: bytes.length });
    await deps.store.s3.send(p.body.data, bytes);
    const id: string = p.body.data.signed_storage_id;
    const before = await assetCount(ws);
    const tampered = id.slice(0, -5) + (id.at(-5) === "A" ? "B" : "A") + id.slice(-4);
    for (const bad of [tampered, "not-a-signed-id", ""]) {
      const res = await complete(ws, rw, { signed_storage_id: bad });
      expect([422]).toContain(res.status);
    }
    expectError(await complete(gcs, gcsToken, { signed_storage_id: id }), 422, "invalid_signed_storage_id");
    deps.time.advance(25 * 3600e3);
    try {
      expectError(await complete(ws, rw, { signed_storage_id: id }), 422, "invalid_signed_storage_id");
    } finally {
      deps.time.reset();
    }
    expect(await assetCount(ws)).toBe(before);
    expect((await complete(ws, rw, { signed_storage_id: id })).status).toBe(200);
  });

  it("404 storage_object_not_found before the bytes arrive, and for a missing part", async () => {
    const p = await prepare(ws, rw, { media_type: "image/png", size: 1234 });
    expectError(await complete(ws, rw, { signed_storage_id: p.body.data.signed_storage_id }), 404, "storage_object_not_found");
    const bytes = crypto.randomBytes(9 * MiB);
    const m = await prepare(ws, rw, { media_type: "application/octet-stream", size: bytes.length, md5: md5hex(bytes) });
    const { multipart_upload_id: uploadId, signed_storage_id: sid } = m.body.data;
    await deps.store.s3.sendPart(m.body.data, 2, bytes.subarray(8 * MiB));
    const before = await assetCount(ws);
    expectError(await complete(ws, rw, { signed_storage_id: sid, multipart_upload_id: uploadId }), 404, "storage_object_not_found");
    expect(await assetCount(ws)).toBe(before);
    await deps.store.s3.sendPart(m.body.data, 1, bytes.subarray(0, 8 * MiB));
    expectValidation(await complete(ws, rw, { signed_storage_id: sid, multipart_upload_id: "other" }), "multipart_upload_id");
    const done = await complete(ws, rw, { signed_storage_id: sid, multipart_upload_id: uploadId });
    expect(done.body.data).toMatchObject({ size: bytes.length, md5: md5hex(bytes) });
  });

  it("422 checksum_mismatch when the bytes differ from the md5 given at prepare", async () => {
    const board = await newBoard(deps.db, ws);
    const bytes = await randomPng();
    const p = await prepare(ws, rw, { media_type: "image/png", size: bytes.length, md5: md5hex(await randomPng()), collection_token: board.token });
    await deps.store.s3.send(p.body.data, bytes);
    expectError(await complete(ws, rw, { signed_storage_id: p.body.data.signed_storage_id }), 422, "checksum_mismatch");
    const listed = await call(boardAssetsRoute.GET, { path: `/v1/${ws.slug}/boards/${board.token}/assets`, token: rw, params: { slug: ws.slug, boardToken: board.token } });
    expect(listed.body.data).toEqual([]);
  });

  it("storage down: 503 storage_unavailable, nothing created; the retry succeeds", async () => {
    const bytes = await randomPng();
    const p = await prepare(ws, rw, { media_type: "image/png", size: bytes.length });
    await deps.store.s3.send(p.body.data, bytes);
    const before = await assetCount(ws);
    deps.store.s3.down = true;
    try {
      expectError(await complete(ws, rw, { signed_storage_id: p.body.data.signed_storage_id }), 503, "storage_unavailable");
    } finally {
      deps.store.s3.down = false;
    }
    expect(await assetCount(ws)).toBe(before);
    expect((await complete(ws, rw, { signed_storage_id: p.body.data.signed_storage_id })).status).toBe(200);
  });
});

describe("GET and DELETE /assets/:token", () => {
  it("deletes with 204, emits asset_deleted with what webhooks need, then reads 404", async () => {
    const board = await newBoard(deps.db, ws);
    const { asset } = await uploadAsset(ws, rw, deps.store.s3, await randomPng(), { collection_token: board.token });
    deps.jobs.clear();
    const res = await call(assetRoute.DELETE, { method: "DELETE", path: `/v1/${ws.slug}/assets/${asset.token}`, token: rw, params: { slug: ws.slug, token: asset.token } });
    expect(res.status).toBe(204);
    expect(deps.jobs.sent).toHaveLength(1);
    expect(deps.jobs.sent[0].data).toMatchObject({ kind: "asset_deleted", assetId: asset.id, snapshot: { token: asset.token, title: asset.title, boardIds: [board.id] } });
    expectError(await getAsset(asset.token), 404, "asset_not_found");
    expect(await deps.store.s3.has(asset.primary_storage_id)).toBe(false);
  });

  it("another workspace's token and a board token cannot read or delete it", async () => {
    const { asset } = await uploadAsset(ws, rw, deps.store.s3, await randomPng());
    const other = await newApiToken(deps.db, gcs);
    expectError(await call(assetRoute.GET, { path: `/v1/${ws.slug}/assets/${asset.token}`, token: other, params: { slug: ws.slug, token: asset.token } }), 404, "workspace_not_found");
    const board = await newBoard(deps.db, ws);
    const bt = await newBoardToken(deps.db, ws, board.token);
    expectError(await call(assetRoute.GET, { path: `/v1/${ws.slug}/assets/${asset.token}`, token: bt, params: { slug: ws.slug, token: asset.token } }), 403, "board_scoped_token");
    expectError(await call(assetRoute.DELETE, { method: "DELETE", path: `/v1/${ws.slug}/assets/${asset.token}`, token: bt, params: { slug: ws.slug, token: asset.token } }), 403, "board_scoped_token");
    expect((await getAsset(asset.token)).status).toBe(200);
  });
});
