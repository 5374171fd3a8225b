import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDb } from "../../../tests/helpers/db";
import type { Db } from "../../db";
import { DomainError } from "../../errors";
import { embeddedS3Credentials } from "../../objectstore/identity";
import { md5Hex, movableClock, startS3Store, tempDir, type StoreServer } from "../../objectstore/testing/fixtures";
import { storageFor } from "../index";
import type { StorageDriver } from "../types";
import { makeS3Client } from "./config";
import { createS3Driver } from "./driver";

// The S3 driver as Easel runs it by default: storageFor("s3") against the embedded store's S3
// endpoint, keys generated into the database, presigned URLs signed at Easel's clock.
const MiB = 1024 * 1024;
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

const inHour = () => new Date(clock().getTime() + 3600_000);

beforeAll(async () => {
  ({ db } = await testDb());
  store = await startS3Store({ root: tempDir("s3-driver"), credentials: () => embeddedS3Credentials(db), clock });
  driver = storageFor("s3", { baseUrl: store.origin, db, clock, embeddedLayout: store.lay });
});

afterAll(() => store?.close());

describe("S3 driver on the embedded store", () => {
  it("keeps its generated key pair in the database", async () => {
    const first = await embeddedS3Credentials(db);
    expect(first.accessKeyId).toMatch(/^EASEL[0-9A-F]{20}$/);
    expect(await embeddedS3Credentials(db)).toEqual(first);
  });

  it("prepares a single PUT below 5 MiB; the object can then be read, hashed, copied and deleted", async () => {
    const bytes = crypto.randomBytes(5 * MiB - 1);
    const prepared = await driver.prepareUpload({ key: "ws1/single.bin", size: bytes.length, contentType: "application/octet-stream", expiresAt: inHour() });
    expect(prepared).toMatchObject({ multipartUploadId: null, partSize: null, partUrls: null });
    expect(prepared.uploadUrl.startsWith(`${store.origin}/storage/s3/easel/ws1/single.bin?`)).toBe(true);
    const put = await fetch(prepared.uploadUrl, { method: "PUT", body: bytes, headers: { "content-type": "image/png" } });
    expect(put.status).toBe(200);

    expect(await driver.head("ws1/single.bin")).toEqual({ size: bytes.length, etag: md5Hex(bytes), contentType: "image/png" });
    expect(await driver.md5("ws1/single.bin")).toBe(md5Hex(bytes));
    expect((await streamBytes(await driver.read("ws1/single.bin", { start: 100, end: 199 }))).equals(bytes.subarray(100, 200))).toBe(true);
    expect((await streamBytes(await driver.read("ws1/single.bin", { start: bytes.length - 10 }))).equals(bytes.subarray(-10))).toBe(true);

    await driver.copy("ws1/single.bin", "ws1/copy.bin");
    expect(await driver.md5("ws1/copy.bin")).toBe(md5Hex(bytes));
    await driver.delete("ws1/single.bin");
    expect(await driver.head("ws1/single.bin")).toBeNull();
    await driver.delete("ws1/single.bin"); // deleting again is fine
  });

  it("prepares a multipart upload at 5 MiB and above: 8 MiB parts, presigned part URLs, completion without client ETags", async () => {
    const bytes = crypto.randomBytes(12 * MiB);
    const prepared = await driver.prepareUpload({ key: "ws1/multi.bin", size: bytes.length, contentType: "video/mp4", expiresAt: inHour() });
    expect(prepared.partSize).toBe(8 * MiB);
    expect(prepared.partUrls).toHaveLength(2);
    expect(prepared.uploadUrl).toBe(prepared.partUrls?.[0]);
    const at = await driver.prepareUpload({ key: "ws1/at.bin", size: 5 * MiB, contentType: "x/y", expiresAt: inHour() });
    expect(at.partUrls).toHaveLength(1);

    const puts = await Promise.all(prepared.partUrls!.map((url, i) => fetch(url, { method: "PUT", body: bytes.subarray(i * 8 * MiB, (i + 1) * 8 * MiB) })));
    expect(puts.map((r) => [r.status, r.headers.get("etag")])).toEqual([
      [200, `"${md5Hex(bytes.subarray(0, 8 * MiB))}"`],
      [200, `"${md5Hex(bytes.subarray(8 * MiB))}"`],
    ]);
    await driver.completeMultipart({ key: "ws1/multi.bin", uploadId: prepared.multipartUploadId!, expectedParts: 2 });
    expect(await driver.head("ws1/multi.bin")).toMatchObject({ size: bytes.length, contentType: "video/mp4" });
    expect(await driver.md5("ws1/multi.bin")).toBe(md5Hex(bytes));
    // Completing again (a retried upload_complete) finds the object and succeeds.
    await driver.completeMultipart({ key: "ws1/multi.bin", uploadId: prepared.multipartUploadId!, expectedParts: 2 });
  });

  it("refuses to complete while a part is missing, then completes once it arrives", async () => {
    const bytes = crypto.randomBytes(9 * MiB);
    const prepared = await driver.prepareUpload({ key: "ws1/partial.bin", size: bytes.length, contentType: "x/y", expiresAt: inHour() });
    expect((await fetch(prepared.partUrls![1], { method: "PUT", body: bytes.subarray(8 * MiB) })).status).toBe(200);
    const err = await domainError(driver.completeMultipart({ key: "ws1/partial.bin", uploadId: prepared.multipartUploadId!, expectedParts: 2 }));
    expect(err.code).toBe("storage_object_not_found");
    expect(err.extensions).toEqual({ missing_parts: [1] });
    expect(await driver.head("ws1/partial.bin")).toBeNull();
    expect((await fetch(prepared.partUrls![0], { method: "PUT", body: bytes.subarray(0, 8 * MiB) })).status).toBe(200);
    await driver.completeMultipart({ key: "ws1/partial.bin", uploadId: prepared.multipartUploadId!, expectedParts: 2 });
    expect(await driver.md5("ws1/partial.bin")).toBe(md5Hex(bytes));
  });

  it("aborts a multipart upload: completing it afterwards finds nothing", async () => {
    const prepared = await driver.prepareUpload({ key: "ws1/aborted.bin", size: 6 * MiB, contentType: "x/y", expiresAt: inHour() });
    await driver.abortMultipart({ key: "ws1/aborted.bin", uploadId: prepared.multipartUploadId! });
    await driver.abortMultipart({ key: "ws1/aborted.bin", uploadId: prepared.multipartUploadId! }); // idempotent
    expect((await fetch(prepared.partUrls![0], { method: "PUT", body: crypto.randomBytes(10) })).status).toBe(404);
    expect((await domainError(driver.completeMultipart({ key: "ws1/aborted.bin", uploadId: prepared.multipartUploadId!, expectedParts: 1 }))).code).toBe("storage_object_not_found");
  });

  it("signs with Easel's clock: a URL is refused once the clock passes its expiry, and when tampered with", async () => {
    const prepared = await driver.prepareUpload({ key: "ws1/expiring.bin", size: 10, contentType: "x/y", expiresAt: inHour() });
    const tampered = prepared.uploadUrl.replace(/X-Amz-Signature=([0-9a-f])/, (_, c: string) => `X-Amz-Signature=${c === "0" ? "1" : "0"}`);
    expect((await fetch(tampered, { method: "PUT", body: "0123456789" })).status).toBe(403);
    clock.advance(3601_000);
    try {
      expect((await fetch(prepared.uploadUrl, { method: "PUT", body: "0123456789" })).status).toBe(403);
      // The driver's own calls carry the moved clock too, so they still work.
      await driver.write("ws1/after-move.txt", Buffer.from("still signing"), "text/plain");
      expect(await driver.md5("ws1/after-move.txt")).toBe(md5Hex(Buffer.from("still signing")));
    } finally {
      clock.advance(-3601_000);
    }
    expect(await driver.head("ws1/expiring.bin")).toBeNull();
  });

  it("writes buffers and streams of any length (streams above 8 MiB go up in parts)", async () => {
    const big = crypto.randomBytes(9 * MiB + 5);
    const chunks = (buf: Buffer, size: number) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < buf.length; i += size) controller.enqueue(buf.subarray(i, i + size));
          controller.close();
        },
      });
    await driver.write("ws1/streamed-big.bin", chunks(big, 1_000_003), "application/x-big");
    expect(await driver.head("ws1/streamed-big.bin")).toMatchObject({ size: big.length, contentType: "application/x-big" });
    expect(await driver.md5("ws1/streamed-big.bin")).toBe(md5Hex(big));
    await driver.write("ws1/streamed-small.bin", chunks(Buffer.from("small"), 2), "text/plain");
    expect((await streamBytes(await driver.read("ws1/streamed-small.bin"))).toString()).toBe("small");
    await driver.write("ws1/empty.bin", Buffer.alloc(0), "text/plain");
    expect(await driver.head("ws1/empty.bin")).toMatchObject({ size: 0 });
  });

  it("gives signed read URLs that choose the response content type", async () => {
    await driver.write("ws1/readable.txt", Buffer.from("read me"), "application/octet-stream");
    const url = await driver.signedReadUrl("ws1/readable.txt", { expiresInSeconds: 60, responseContentType: "text/plain" });
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain");
    expect(await res.text()).toBe("read me");
  });

  it("reports missing objects as storage_object_not_found and bad ranges as validation_failed", async () => {
    expect(await driver.head("ws1/nothing")).toBeNull();
    expect((await domainError(driver.md5("ws1/nothing"))).code).toBe("storage_object_not_found");
    expect((await domainError(driver.read("ws1/nothing"))).code).toBe("storage_object_not_found");
    expect((await domainError(driver.copy("ws1/nothing", "ws1/nothing-copy"))).code).toBe("storage_object_not_found");
    await driver.write("ws1/short.txt", Buffer.from("abc"), "text/plain");
    expect((await domainError(driver.read("ws1/short.txt", { start: 10 }))).code).toBe("validation_failed");
  });

  it("reports an unreachable bucket as storage_unavailable", async () => {
    const settings = { endpoint: "http://127.0.0.1:9", region: "us-east-1", bucket: "easel", forcePathStyle: true, credentials: { accessKeyId: "k", secretAccessKey: "s" }, embedded: false };
    const dead = createS3Driver(async () => ({ client: makeS3Client(settings), bucket: "easel" }), clock);
    expect((await domainError(dead.head("anything"))).code).toBe("storage_unavailable");
    expect((await domainError(dead.read("anything"))).code).toBe("storage_unavailable");
  });

  it("serves its own calls in-process: the origin it signs URLs for need not answer", async () => {
    const offline = storageFor("s3", { baseUrl: "http://127.0.0.1:9", db, clock, embeddedLayout: store.lay });
    await offline.write("ws1/in-process.bin", Buffer.from("no socket"), "text/plain");
    expect(await offline.head("ws1/in-process.bin")).toEqual({ size: 9, etag: md5Hex(Buffer.from("no socket")), contentType: "text/plain" });
    expect((await streamBytes(await offline.read("ws1/in-process.bin"))).toString()).toBe("no socket");
    expect(await offline.md5("ws1/in-process.bin")).toBe(md5Hex(Buffer.from("no socket")));
    // The same bytes over HTTP, through the store's route on its own origin.
    const res = await fetch(await driver.signedReadUrl("ws1/in-process.bin", { expiresInSeconds: 60 }));
    expect(await res.text()).toBe("no socket");
  });
});
