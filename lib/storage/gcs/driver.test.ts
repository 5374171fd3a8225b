import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDb } from "../../../tests/helpers/db";
import type { Db } from "../../db";
import { settings } from "../../db/schema";
import { DomainError } from "../../errors";
import { embeddedLayout } from "../../objectstore";
import { embeddedGcsIdentity } from "../../objectstore/identity";
import { md5Hex, movableClock, startGcsStore, type StoreServer } from "../../objectstore/testing/fixtures";
import { storageFor } from "../index";
import type { StorageDriver } from "../types";

// The GCS driver (Kind A) as Easel runs it by default: resumable-upload URLs signed by
// @google-cloud/storage with the embedded store's key pair (kept in the database), verified by
// the store's GCS endpoint; objects read and written in the store's files under EASEL_DATA_DIR.
const clock = movableClock();
let db: Db;
let store: StoreServer;
let driver: StorageDriver;

async function domainError(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error("expected a DomainError");
}

async function streamBytes(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const c of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(c);
  return Buffer.concat(chunks);
}

async function upload(key: string, bytes: Buffer, expiresAt = new Date(clock().getTime() + 3600_000)) {
  const prepared = await driver.prepareUpload({ key, size: bytes.length, contentType: "application/octet-stream", expiresAt });
  const start = await fetch(prepared.uploadUrl, { method: "POST", headers: { "x-goog-resumable": "start", "content-type": "image/png" } });
  expect(start.status).toBe(201);
  const session = start.headers.get("location") as string;
  expect((await fetch(session, { method: "PUT", body: new Uint8Array(bytes) })).status).toBe(200);
  return prepared;
}

beforeAll(async () => {
  ({ db } = await testDb());
  store = await startGcsStore({ root: embeddedLayout().root, identity: () => embeddedGcsIdentity(db), clock });
  driver = storageFor("gcs", { baseUrl: store.origin, db, clock });
});

afterAll(() => store?.close());

describe("GCS driver on the embedded store", () => {
  it("keeps one RSA signing key in the database", async () => {
    const a = await embeddedGcsIdentity(db);
    const b = await embeddedGcsIdentity(db);
    expect(b.privateKeyPem).toBe(a.privateKeyPem);
    const [row] = await db.select().from(settings).where(eq(settings.key, "object_store_gcs_private_key"));
    expect(row.value).toContain("BEGIN PRIVATE KEY");
  });

  it("prepares a resumable upload URL on the store; after the upload the object can be read, hashed, copied and deleted", async () => {
    const bytes = crypto.randomBytes(700_000);
    const prepared = await upload("ws/a.png", bytes);
    expect(prepared).toMatchObject({ multipartUploadId: null, partSize: null, partUrls: null });
    expect(new URL(prepared.uploadUrl).pathname).toBe("/storage/gcs/easel/ws/a.png");
    expect(new URL(prepared.uploadUrl).searchParams.get("X-Goog-SignedHeaders")).toBe("host;x-goog-resumable");

    expect(await driver.head("ws/a.png")).toEqual({ size: bytes.length, etag: md5Hex(bytes), contentType: "image/png" });
    expect(await driver.md5("ws/a.png")).toBe(md5Hex(bytes));
    expect((await streamBytes(await driver.read("ws/a.png", { start: 10, end: 19 }))).equals(bytes.subarray(10, 20))).toBe(true);
    await driver.completeMultipart({ key: "ws/a.png", uploadId: "", expectedParts: 1 }); // nothing to do: already whole
    await driver.copy("ws/a.png", "ws/b.png");
    expect(await driver.md5("ws/b.png")).toBe(md5Hex(bytes));
    await driver.delete("ws/a.png");
    expect(await driver.head("ws/a.png")).toBeNull();
  });

  it("reports an unfinished upload as storage_object_not_found", async () => {
    const prepared = await driver.prepareUpload({ key: "ws/unfinished.bin", size: 1000, contentType: "x/y", expiresAt: new Date(clock().getTime() + 3600_000) });
    const session = (await fetch(prepared.uploadUrl, { method: "POST", headers: { "x-goog-resumable": "start" } })).headers.get("location") as string;
    expect((await fetch(session, { method: "PUT", body: crypto.randomBytes(256 * 1024), headers: { "content-range": "bytes 0-262143/300000" } })).status).toBe(308);
    expect((await domainError(driver.completeMultipart({ key: "ws/unfinished.bin", uploadId: "", expectedParts: 1 }))).code).toBe("storage_object_not_found");
    expect(await driver.head("ws/unfinished.bin")).toBeNull();
  });

  it("signs at Easel's clock: the upload URL is refused once the clock passes its expiry", async () => {
    const prepared = await driver.prepareUpload({ key: "ws/late.bin", size: 10, contentType: "x/y", expiresAt: new Date(clock().getTime() + 24 * 3600_000) });
    clock.advance(25 * 3600_000);
    try {
      const res = await fetch(prepared.uploadUrl, { method: "POST", headers: { "x-goog-resumable": "start" } });
      expect(res.status).toBe(403);
    } finally {
      clock.advance(-25 * 3600_000);
    }
    expect((await fetch(prepared.uploadUrl, { method: "POST", headers: { "x-goog-resumable": "start" } })).status).toBe(201);
  });

  it("writes buffers and streams, and gives signed read URLs", async () => {
    await driver.write("ws/w.txt", Buffer.from("written"), "text/plain");
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(Buffer.from("str"));
        c.enqueue(Buffer.from("eamed"));
        c.close();
      },
    });
    await driver.write("ws/s.txt", stream, "text/plain");
    expect((await streamBytes(await driver.read("ws/s.txt"))).toString()).toBe("streamed");
    const res = await fetch(await driver.signedReadUrl("ws/w.txt", { expiresInSeconds: 60, responseContentType: "text/x-easel" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/x-easel");
    expect(await res.text()).toBe("written");
  });

  it("reports missing objects as storage_object_not_found", async () => {
    expect(await driver.head("ws/none")).toBeNull();
    // One at a time: promises made up front would reject before they are awaited (unhandled).
    for (const op of [() => driver.md5("ws/none"), () => driver.read("ws/none"), () => driver.copy("ws/none", "ws/none2")]) {
      expect((await domainError(op())).code).toBe("storage_object_not_found");
    }
    await driver.delete("ws/none");
  });
});
