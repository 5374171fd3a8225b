import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { useTestDeps } from "../../tests/helpers/deps";
import { expectError } from "../../tests/helpers/envelopes";
import { md5hex, newApiToken, newBoard, newWorkspace, randomPng } from "../../tests/helpers/factories";
import { uploadAsset } from "../../tests/helpers/uploads";
import { patch, versions } from "../../tests/helpers/versions";
import { patchAsset } from "../assets/patch-asset";
import { uploadSessions, type Workspace } from "../db/schema";
import { DomainError } from "../errors";
import { ingestBytes } from "./ingest-bytes";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let token: string;
let boardToken: string;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db, { plan: "team" });
  token = await newApiToken(deps.db, ws);
  boardToken = (await newBoard(deps.db, ws)).token;
});

async function newAsset() {
  const bytes = await randomPng();
  return (await uploadAsset(ws, token, deps.store.s3, bytes, { collection_token: boardToken })).asset;
}

describe("ingestBytes", () => {
  it("stores the bytes and a pending session whose signed_storage_id a version-writing PATCH accepts", async () => {
    const asset = await newAsset();
    const bytes = await randomPng(16, 16);
    const ingested = await ingestBytes(deps, deps.store.s3, { workspace: ws, bytes, mediaType: "image/png" });
    expect(ingested.md5).toBe(md5hex(bytes));
    expect((await deps.store.s3.bytes(ingested.key)).equals(bytes)).toBe(true);

    deps.jobs.clear();
    const res = await patch(ws, token, asset.token, { create_version: true, signed_storage_id: ingested.signedStorageId, comment: "before" });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ head_version_number: 2, data: { md5: md5hex(bytes), size: bytes.length, primary_storage_id: ingested.key } });
    expect(deps.jobs.sent.map((e) => e.name)).toEqual(["asset/processing.requested", "asset/changed"]);
    const list = await versions(ws, token, asset.token);
    expect(list.body.data[0]).toMatchObject({ version_number: 1, md5: asset.md5, comment: "before" });
    const [session] = await deps.db.select().from(uploadSessions).where(eq(uploadSessions.storageKey, ingested.key));
    expect(session).toMatchObject({ status: "completed", consumedAs: "version", md5: md5hex(bytes) });
  });

  it("goes through patchAsset like any upload; a second use of the id writes nothing more", async () => {
    const asset = await newAsset();
    const bytes = await randomPng(12, 12);
    const { signedStorageId } = await ingestBytes(deps, deps.store.s3, { workspace: ws, bytes, mediaType: "image/png" });
    const principal = { kind: "session" as const, userId: 1, email: "a@example.com", owner: true, roles: new Map() };
    const body = { createVersion: true, signedStorageId };
    const first = await patchAsset(deps, deps.store.s3, { workspace: ws, principal, token: asset.token, body });
    expect(first).toMatchObject({ wrote: true, headVersionNumber: 2 });
    const again = await patchAsset(deps, deps.store.s3, { workspace: ws, principal, token: asset.token, body });
    expect(again).toMatchObject({ wrote: false, headVersionNumber: 2 });
  });

  it("records the md5, so bytes that changed in storage are refused (checksum_mismatch)", async () => {
    const asset = await newAsset();
    const bytes = await randomPng();
    const ingested = await ingestBytes(deps, deps.store.s3, { workspace: ws, bytes, mediaType: "image/png" });
    await deps.store.s3.put(ingested.key, await randomPng());
    const res = await patch(ws, token, asset.token, { create_version: true, signed_storage_id: ingested.signedStorageId });
    expectError(res, 422, "checksum_mismatch");
  });

  it("its id is bound to the workspace, like prepare's", async () => {
    const other = await newWorkspace(deps.db, { plan: "team" });
    const otherToken = await newApiToken(deps.db, other);
    const otherBoard = await newBoard(deps.db, other);
    const { asset } = await uploadAsset(other, otherToken, deps.store.s3, await randomPng(), { collection_token: otherBoard.token });
    const { signedStorageId } = await ingestBytes(deps, deps.store.s3, { workspace: ws, bytes: await randomPng(), mediaType: "image/png" });
    expectError(await patch(other, otherToken, asset.token, { create_version: true, signed_storage_id: signedStorageId }), 422, "invalid_signed_storage_id");
  });

  it("refuses an empty file", async () => {
    const err = await ingestBytes(deps, deps.store.s3, { workspace: ws, bytes: Buffer.alloc(0), mediaType: "image/png" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe("validation_failed");
  });
});
