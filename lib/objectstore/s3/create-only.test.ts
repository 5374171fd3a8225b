import crypto from "node:crypto";
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { headObject } from "../disk/objects";
import { md5Hex, movableClock, storedBytes as readStoredBytes, startS3Store, tempDir, tmpLeftovers, type StoreServer } from "../testing/fixtures";

// A presigned write creates an object and never replaces one (contract §12, "stored bytes are
// immutable once completed"); the store's own key pair keeps S3's overwrite semantics.
const credentials = { accessKeyId: "EASELTESTKEY", secretAccessKey: "test-secret-key" };
const clock = movableClock();
const MiB = 1024 * 1024;
let store: StoreServer;
let s3: S3Client;

const options = () => ({ expiresIn: 900, signingDate: clock() });
const presignPut = (Key: string) => getSignedUrl(s3, new PutObjectCommand({ Bucket: "easel", Key }), options());
const presignPart = (Key: string, UploadId: string, PartNumber: number) => getSignedUrl(s3, new UploadPartCommand({ Bucket: "easel", Key, UploadId, PartNumber }), options());
const presignComplete = (Key: string, UploadId: string) => getSignedUrl(s3, new CompleteMultipartUploadCommand({ Bucket: "easel", Key, UploadId }), options());

const storedBytes = (key: string) => readStoredBytes(store.lay, key);

const completeXml = (etags: string[]) =>
  `<CompleteMultipartUpload>${etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${etag}</ETag></Part>`).join("")}</CompleteMultipartUpload>`;

/** A multipart upload created as Easel's prepare creates it (header-signed), its parts sent through presigned URLs. */
async function uploadParts(key: string, parts: Buffer[]): Promise<{ uploadId: string; etags: string[] }> {
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key: key }));
  const etags: string[] = [];
  for (const [i, part] of parts.entries()) {
    const res = await fetch(await presignPart(key, UploadId!, i + 1), { method: "PUT", body: new Uint8Array(part) });
    expect(res.status).toBe(200);
    etags.push(res.headers.get("etag")!);
  }
  return { uploadId: UploadId!, etags };
}

beforeAll(async () => {
  store = await startS3Store({ root: tempDir("create-only"), credentials: async () => credentials, clock });
  s3 = new S3Client({ endpoint: store.endpoint, region: "us-east-1", forcePathStyle: true, credentials, requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED", maxAttempts: 1 });
  await s3.send(new CreateBucketCommand({ Bucket: "easel" }));
});

afterAll(async () => {
  s3?.destroy();
  await store?.close();
});

describe("presigned PUT", () => {
  it("creates; other bytes later answer 412 PreconditionFailed and change nothing; the same bytes answer 200", async () => {
    const key = "ws/1/originals/once";
    const url = await presignPut(key);
    const first = crypto.randomBytes(200_000);
    expect((await fetch(url, { method: "PUT", body: first })).status).toBe(200);
    const record = await headObject(store.lay, "easel", key);

    const second = await fetch(url, { method: "PUT", body: crypto.randomBytes(3000), headers: { "content-type": "text/html" } });
    expect(second.status).toBe(412);
    const xml = await second.text();
    expect(xml).toContain("<Code>PreconditionFailed</Code>");
    expect(xml).toContain("<Condition>If-None-Match</Condition>");
    expect(await headObject(store.lay, "easel", key)).toEqual(record);
    expect((await storedBytes(key)).equals(first)).toBe(true);

    const retry = await fetch(url, { method: "PUT", body: first });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("etag")).toBe(`"${md5Hex(first)}"`);
    expect(await headObject(store.lay, "easel", key)).toEqual(record); // same record: same lastModified, same files
    expect(tmpLeftovers(store.lay)).toEqual([]);
  });

  it("two racing uploads of different bytes to a free key: exactly one wins, and the object is its bytes", async () => {
    const key = "ws/1/originals/race";
    const url = await presignPut(key);
    const bodies = [crypto.randomBytes(2 * MiB), crypto.randomBytes(2 * MiB)];
    const answers = await Promise.all(bodies.map((body) => fetch(url, { method: "PUT", body }).then((r) => r.status)));
    expect([...answers].sort()).toEqual([200, 412]);
    const winner = bodies[answers.indexOf(200)];
    expect((await storedBytes(key)).equals(winner)).toBe(true);
  });

  it("the store's own key pair still overwrites (Easel's server, an operator's S3 client)", async () => {
    const key = "ws/1/originals/operator";
    expect((await fetch(await presignPut(key), { method: "PUT", body: "uploaded" })).status).toBe(200);
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: key, Body: "rewritten by the operator" }));
    expect((await storedBytes(key)).toString()).toBe("rewritten by the operator");
  });

  it("a presigned CopyObject (copy source signed) cannot replace an object either", async () => {
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "ws/1/originals/copy-src", Body: "source" }));
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "ws/1/originals/copy-dst", Body: "destination" }));
    const url = await getSignedUrl(s3, new CopyObjectCommand({ Bucket: "easel", Key: "ws/1/originals/copy-dst", CopySource: "easel/ws/1/originals/copy-src" }), {
      ...options(),
      unhoistableHeaders: new Set(["x-amz-copy-source"]),
    });
    const res = await fetch(url, { method: "PUT", headers: { "x-amz-copy-source": "easel/ws/1/originals/copy-src" } });
    expect(res.status).toBe(412);
    expect((await storedBytes("ws/1/originals/copy-dst")).toString()).toBe("destination");
  });
});

describe("multipart", () => {
  it("after completion a part URL answers 404 NoSuchUpload and the object keeps its bytes", async () => {
    const key = "ws/1/originals/mp-done";
    const parts = [crypto.randomBytes(5 * MiB), crypto.randomBytes(1000)];
    const { uploadId, etags } = await uploadParts(key, parts);
    // Completed as Easel's upload_complete completes it: with the store's key pair.
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: key, UploadId: uploadId, MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) } }));
    const late = await fetch(await presignPart(key, uploadId, 2), { method: "PUT", body: "replacement" });
    expect(late.status).toBe(404);
    expect(await late.text()).toContain("<Code>NoSuchUpload</Code>");
    expect((await storedBytes(key)).equals(Buffer.concat(parts))).toBe(true);
  });

  it("a presigned CompleteMultipartUpload on a taken key answers 412 and leaves object and upload as they were; the same bytes complete as a no-op", async () => {
    const key = "ws/1/originals/mp-taken";
    const original = crypto.randomBytes(6 * MiB);
    expect((await fetch(await presignPut(key), { method: "PUT", body: original })).status).toBe(200);
    const record = await headObject(store.lay, "easel", key);

    const other = await uploadParts(key, [crypto.randomBytes(5 * MiB), crypto.randomBytes(10)]);
    const refused = await fetch(await presignComplete(key, other.uploadId), { method: "POST", body: completeXml(other.etags) });
    expect(refused.status).toBe(412);
    expect(await headObject(store.lay, "easel", key)).toEqual(record);
    const listed = await s3.send(new ListPartsCommand({ Bucket: "easel", Key: key, UploadId: other.uploadId }));
    expect(listed.Parts?.map((p) => p.PartNumber)).toEqual([1, 2]);

    const same = await uploadParts(key, [original.subarray(0, 5 * MiB), original.subarray(5 * MiB)]);
    const ok = await fetch(await presignComplete(key, same.uploadId), { method: "POST", body: completeXml(same.etags) });
    expect(ok.status).toBe(200);
    expect(await headObject(store.lay, "easel", key)).toEqual(record);
    expect((await storedBytes(key)).equals(original)).toBe(true);
  });
});
