import crypto from "node:crypto";
import { CompleteMultipartUploadCommand, type S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../clock";
import { DomainError } from "../../errors";
import { md5Hex, tempDir } from "../../objectstore/testing/fixtures";
import { S3RVER_CREDENTIALS, startS3rver } from "../../objectstore/testing/s3rver";
import type { StorageDriver } from "../types";
import { makeS3Client } from "./config";
import { createS3Driver } from "./driver";

// The S3 driver against another S3 implementation, s3rver (in process). s3rver checks no
// signatures and has no ListParts or AbortMultipartUpload, so nothing here relies on those: this
// proves the driver's requests and presigned URLs are ordinary S3, not shaped to the embedded store.
const MiB = 1024 * 1024;
let server: { origin: string; close: () => Promise<void> };
let client: S3Client;
let driver: StorageDriver;

const inHour = () => new Date(Date.now() + 3600_000);

async function streamBytes(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const c of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(c);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  server = await startS3rver(tempDir("s3rver"), ["easel"]);
  client = makeS3Client({ endpoint: server.origin, region: "us-east-1", bucket: "easel", forcePathStyle: true, credentials: S3RVER_CREDENTIALS, embedded: false });
  driver = createS3Driver(async () => ({ client, bucket: "easel" }), systemClock);
});

afterAll(async () => {
  client?.destroy();
  await server?.close();
});

describe("S3 driver on s3rver", () => {
  it("single upload through the presigned URL, then head, md5 (by reading), range read, copy, delete", async () => {
    const bytes = crypto.randomBytes(200_000);
    const prepared = await driver.prepareUpload({ key: "ws/one.png", size: bytes.length, contentType: "image/png", expiresAt: inHour() });
    expect(prepared.multipartUploadId).toBeNull();
    const put = await fetch(prepared.uploadUrl, { method: "PUT", body: bytes, headers: { "content-type": "image/png" } });
    expect(put.status).toBe(200);
    expect(put.headers.get("etag")).toBe(`"${md5Hex(bytes)}"`);

    expect(await driver.head("ws/one.png")).toEqual({ size: bytes.length, etag: md5Hex(bytes), contentType: "image/png" });
    expect(await driver.md5("ws/one.png")).toBe(md5Hex(bytes));
    expect((await streamBytes(await driver.read("ws/one.png", { start: 5, end: 9 }))).equals(bytes.subarray(5, 10))).toBe(true);
    await driver.copy("ws/one.png", "ws/two.png");
    expect(await driver.md5("ws/two.png")).toBe(md5Hex(bytes));
    await driver.delete("ws/one.png");
    expect(await driver.head("ws/one.png")).toBeNull();
  });

  it("multipart: 8 MiB presigned part URLs accepted by another S3 server", async () => {
    const bytes = crypto.randomBytes(12 * MiB);
    const prepared = await driver.prepareUpload({ key: "ws/big.bin", size: bytes.length, contentType: "application/octet-stream", expiresAt: inHour() });
    expect(prepared.partUrls).toHaveLength(2);
    const etags: string[] = [];
    for (const [i, url] of prepared.partUrls!.entries()) {
      const res = await fetch(url, { method: "PUT", body: bytes.subarray(i * prepared.partSize!, (i + 1) * prepared.partSize!) });
      expect(res.status).toBe(200);
      etags.push(res.headers.get("etag") as string);
    }
    // s3rver cannot list parts, so this completion names the ETags itself.
    await client.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "ws/big.bin", UploadId: prepared.multipartUploadId!, MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) } }));
    expect(await driver.head("ws/big.bin")).toMatchObject({ size: bytes.length });
    expect(await driver.md5("ws/big.bin")).toBe(md5Hex(bytes));
  });

  it("writes a stream longer than one part (multipart with ETags from each part)", async () => {
    const bytes = crypto.randomBytes(8 * MiB + 1000);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 700_001) controller.enqueue(bytes.subarray(i, i + 700_001));
        controller.close();
      },
    });
    await driver.write("ws/streamed.bin", body, "application/x-stream");
    expect(await driver.md5("ws/streamed.bin")).toBe(md5Hex(bytes));
  });

  it("signed read URLs work there too, with the response content type", async () => {
    await driver.write("ws/read.txt", Buffer.from("hello s3rver"), "application/octet-stream");
    const res = await fetch(await driver.signedReadUrl("ws/read.txt", { expiresInSeconds: 60, responseContentType: "text/plain" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain");
    expect(await res.text()).toBe("hello s3rver");
  });

  it("maps a missing object to storage_object_not_found", async () => {
    const err = await driver.md5("ws/missing").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe("storage_object_not_found");
    expect(await driver.head("ws/missing")).toBeNull();
  });
});
