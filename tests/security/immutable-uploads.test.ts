import crypto from "node:crypto";
import { and, count, desc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import { assets, uploadSessions, type Board, type Workspace } from "../../lib/db/schema";
import { setDeps } from "../../lib/deps";
import { serveGcs, serveS3 } from "../../lib/objectstore";
import { S3_MOUNT_PATH } from "../../lib/objectstore/mounts";
import { listen, type RunningServer } from "../../lib/objectstore/testing/node-server";
import { storageFor } from "../../lib/storage";
import type { StorageDriver } from "../../lib/storage/types";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError } from "../helpers/envelopes";
import { MiB, md5hex, newApiToken, newBoard, newWorkspace, randomPng } from "../helpers/factories";
import { complete, prepare } from "../helpers/uploads";
import { patch, versions } from "../helpers/versions";

/**
 * Contract §12, "stored bytes are immutable once completed" and "declared size is the size",
 * through the real /v1 routes and the embedded store on a real HTTP port (the URLs upload_prepare
 * hands out are used as a client would use them). Findings 3 and 8 of the security review: a
 * second PUT to an s3 upload_url, or a new resumable session from a gcs start URL, used to replace
 * an asset's bytes under its recorded md5; a PUT larger than the declared size made a larger asset.
 */
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let store: RunningServer;

type Prepared = { upload_url: string; signed_storage_id: string; multipart_upload_id: string | null; part_urls: string[] | null; part_size: number | null };
type Tenant = { ws: Workspace; token: string; board: Board; storage: StorageDriver };

beforeAll(async () => {
  deps = await useTestDeps();
  store = await listen((req) => (new URL(req.url).pathname.startsWith(S3_MOUNT_PATH) ? serveS3(req) : serveGcs(req)));
  // The routes presign on this server (not on the request's origin): the store answers here.
  setDeps({ db: deps.db, clock: deps.clock, jobs: deps.jobs, storage: (kind) => storageFor(kind, { baseUrl: store.origin, db: deps.db, clock: deps.clock }) });
});

afterAll(async () => {
  setDeps(null);
  await store?.close();
});

async function tenant(kind: "s3" | "gcs"): Promise<Tenant> {
  const ws = await newWorkspace(deps.db, { plan: "team", storage: kind });
  return { ws, token: await newApiToken(deps.db, ws), board: await newBoard(deps.db, ws), storage: storageFor(kind, { baseUrl: store.origin, db: deps.db, clock: deps.clock }) };
}

/** Sends bytes the way a client does with upload_prepare's answer; returns the store's final status. */
async function send(kind: "s3" | "gcs", prep: Prepared, bytes: Buffer): Promise<number> {
  if (kind === "gcs") {
    const start = await fetch(prep.upload_url, { method: "POST", headers: { "x-goog-resumable": "start" } });
    if (start.status !== 201) return start.status;
    return (await fetch(start.headers.get("location")!, { method: "PUT", body: new Uint8Array(bytes) })).status;
  }
  if (!prep.multipart_upload_id) return (await fetch(prep.upload_url, { method: "PUT", body: new Uint8Array(bytes) })).status;
  let status = 0;
  for (const [i, url] of prep.part_urls!.entries()) {
    status = (await fetch(url, { method: "PUT", body: new Uint8Array(bytes.subarray(i * prep.part_size!, (i + 1) * prep.part_size!)) })).status;
    if (status !== 200) return status;
  }
  return status;
}

async function upload(t: Tenant, bytes: Buffer, onBoard = false) {
  const p = await prepare(t.ws, t.token, { title: "Original", media_type: "application/octet-stream", size: bytes.length });
  expect(p.status, p.text).toBe(200);
  const prep = p.body.data as Prepared;
  expect(await send(t.ws.storageKind, prep, bytes)).toBe(200);
  const c = await complete(t.ws, t.token, { signed_storage_id: prep.signed_storage_id, multipart_upload_id: prep.multipart_upload_id ?? undefined, collection_token: onBoard ? t.board.token : undefined });
  expect(c.status, c.text).toBe(200);
  return { asset: c.body.data as { token: string; md5: string; size: number; primary_storage_id: string }, prep };
}

async function storedBytes(t: Tenant, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of (await t.storage.read(key)) as unknown as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/** What the asset serves: its recorded md5 and size, and the bytes at its key, unchanged. */
async function expectServes(t: Tenant, asset: { token: string; primary_storage_id: string }, bytes: Buffer) {
  const got = await call(assetRoute.GET, { path: `/v1/${t.ws.slug}/assets/${asset.token}`, token: t.token, params: { slug: t.ws.slug, token: asset.token } });
  expect(got.status).toBe(200);
  expect(got.body.data).toMatchObject({ md5: md5hex(bytes), size: bytes.length });
  expect(await t.storage.md5(asset.primary_storage_id)).toBe(md5hex(bytes));
  expect((await storedBytes(t, asset.primary_storage_id)).equals(bytes)).toBe(true);
}

const assetCount = async (ws: Workspace) => (await deps.db.select({ n: count() }).from(assets).where(eq(assets.workspaceId, ws.id)))[0].n;
const lastSession = async (ws: Workspace) => (await deps.db.select().from(uploadSessions).where(eq(uploadSessions.workspaceId, ws.id)).orderBy(desc(uploadSessions.id)).limit(1))[0];

describe.each(["s3", "gcs"] as const)("%s: an upload URL cannot change a completed asset", (kind) => {
  it("a second upload of other bytes through the same URL fails; the asset serves the first bytes and md5", async () => {
    const t = await tenant(kind);
    const first = crypto.randomBytes(300_000);
    const { asset, prep } = await upload(t, first);

    expect(await send(kind, prep, crypto.randomBytes(300_000))).toBe(412);
    expect(await send(kind, prep, crypto.randomBytes(10))).toBe(412);
    await expectServes(t, asset, first);
  });

  it("the same bytes again (a client's retry) are no change", async () => {
    const t = await tenant(kind);
    const first = await randomPng();
    const { asset, prep } = await upload(t, first);
    if (kind === "s3") expect(await send(kind, prep, first)).toBe(200);
    else expect(await send(kind, prep, first)).toBe(412); // a new session on a taken name is refused at its start, whatever it would carry
    await expectServes(t, asset, first);
    expect(await assetCount(t.ws)).toBe(1);
  });
});

describe("gcs: the session URL after completion", () => {
  it("a new session is refused at the signed start URL (412) and the finished session stores nothing more", async () => {
    const t = await tenant("gcs");
    const p = (await prepare(t.ws, t.token, { media_type: "application/octet-stream", size: 1000 })).body.data as Prepared;
    const start = await fetch(p.upload_url, { method: "POST", headers: { "x-goog-resumable": "start" } });
    const sessionUrl = start.headers.get("location")!;
    const first = crypto.randomBytes(1000);
    expect((await fetch(sessionUrl, { method: "PUT", body: new Uint8Array(first) })).status).toBe(200);
    const c = await complete(t.ws, t.token, { signed_storage_id: p.signed_storage_id });
    expect(c.status).toBe(200);

    const again = await fetch(p.upload_url, { method: "POST", headers: { "x-goog-resumable": "start" } });
    expect(again.status).toBe(412);
    expect(await again.text()).toContain("<Code>PreconditionFailed</Code>");
    // The finished session answers as finished (GCS's behaviour) and keeps the bytes it took.
    await fetch(sessionUrl, { method: "PUT", body: new Uint8Array(crypto.randomBytes(1000)) });
    await expectServes(t, c.body.data, first);
  });
});

describe("s3 multipart: part URLs after completion", () => {
  it("a part PUT after upload_complete fails with NoSuchUpload; the asset keeps its bytes", async () => {
    const t = await tenant("s3");
    const bytes = crypto.randomBytes(9 * MiB);
    const { asset, prep } = await upload(t, bytes);
    expect(prep.part_urls).toHaveLength(2);
    for (const url of prep.part_urls!) {
      const late = await fetch(url, { method: "PUT", body: new Uint8Array(crypto.randomBytes(1000)) });
      expect(late.status).toBe(404);
      expect(await late.text()).toContain("<Code>NoSuchUpload</Code>");
    }
    await expectServes(t, asset, bytes);
  });
});

describe.each(["s3", "gcs"] as const)("%s: the declared size is the size", (kind) => {
  it("prepare size 5, upload 3,000,000 bytes: upload_complete answers 422 size_mismatch, makes no asset, the session stays pending", async () => {
    const t = await tenant(kind);
    const p = await prepare(t.ws, t.token, { media_type: "application/octet-stream", size: 5 });
    const prep = p.body.data as Prepared;
    expect(await send(kind, prep, crypto.randomBytes(3_000_000))).toBe(200);
    const refused = await complete(t.ws, t.token, { signed_storage_id: prep.signed_storage_id });
    expect(expectError(refused, 422, "size_mismatch")).toMatchObject({ expected_size: 5, actual_size: 3_000_000 });
    expect(await assetCount(t.ws)).toBe(0);
    expect((await lastSession(t.ws)).status).toBe("pending");
    // The URL cannot replace the wrong bytes with the right ones: the client prepares again.
    expect(await send(kind, prep, crypto.randomBytes(5))).toBe(412);
    expectError(await complete(t.ws, t.token, { signed_storage_id: prep.signed_storage_id }), 422, "size_mismatch");
    const right = crypto.randomBytes(5);
    const { asset } = await upload(t, right);
    expect(asset.size).toBe(5);
    expect(await assetCount(t.ws)).toBe(1);
  });

  it("the same for a version-writing PATCH: 422 size_mismatch, no version, the head unchanged", async () => {
    const t = await tenant(kind);
    const original = await randomPng();
    const { asset } = await upload(t, original, true);
    const p = await prepare(t.ws, t.token, { media_type: "application/octet-stream", size: 5 });
    const prep = p.body.data as Prepared;
    expect(await send(kind, prep, crypto.randomBytes(3_000_000))).toBe(200);
    const refused = await patch(t.ws, t.token, asset.token, { create_version: true, signed_storage_id: prep.signed_storage_id });
    expect(expectError(refused, 422, "size_mismatch")).toMatchObject({ expected_size: 5, actual_size: 3_000_000 });
    const listed = await versions(t.ws, t.token, asset.token);
    expect(listed.body).toMatchObject({ data: [], head_version_number: 1 });
    await expectServes(t, asset, original);
    const session = (await deps.db.select().from(uploadSessions).where(and(eq(uploadSessions.workspaceId, t.ws.id), eq(uploadSessions.status, "pending"))))[0];
    expect(session?.size).toBe(5);
  });
});
