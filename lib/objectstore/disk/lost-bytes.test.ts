import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  DeleteObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureLogs } from "../../log/capture";
import { localObjects } from "../../storage/gcs/local-objects";
import { GCS_MOUNT_PATH } from "../mounts";
import { md5Hex, movableClock, startGcsStore, startS3Store, storedBytes, tempDir, type StoreServer } from "../testing/fixtures";
import type { Layout } from "./layout";
import { inspectObject, type ObjectRecord } from "./objects";

// Contract §10: a stored file that is gone or truncated is no object, on every path that reads
// one: the S3 endpoint's HEAD, GET and copy source, the GCS endpoint's signed GET, and the object
// access the gcs driver uses on the embedded store. Each finding is logged with its key.
const credentials = { accessKeyId: "EASELTESTKEY", secretAccessKey: "test-secret-key" };
const clock = movableClock();
const MiB = 1024 * 1024;
const { privateKey, publicKey } = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
const clientEmail = "signer@easel.test";
let s3Store: StoreServer;
let gcsStore: StoreServer;
let s3: S3Client;

beforeAll(async () => {
  // Both endpoints over one folder, as in Easel (one bucket, two protocols).
  const root = tempDir("lost-bytes");
  s3Store = await startS3Store({ root, credentials: async () => credentials, clock });
  gcsStore = await startGcsStore({ root, identity: async () => ({ clientEmail, publicKey }), clock });
  s3 = new S3Client({ endpoint: s3Store.endpoint, region: "us-east-1", forcePathStyle: true, credentials, requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED", maxAttempts: 1 });
  await s3.send(new CreateBucketCommand({ Bucket: "easel" }));
});

afterAll(async () => {
  await s3Store?.close();
  await gcsStore?.close();
});

/** The files holding an object's bytes, in order. */
async function dataFiles(lay: Layout, key: string): Promise<string[]> {
  const state = await inspectObject(lay, "easel", key);
  if (!state) throw new Error(`${key} has no record`);
  return state.record.segments.map((s) => path.join(lay.objectDir("easel", key), s.file));
}

async function s3Failure(p: Promise<unknown>): Promise<{ name: string; status: number | undefined }> {
  try {
    await p;
  } catch (err) {
    const e = err as { name: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode };
  }
  throw new Error("expected the call to fail");
}

async function gcsGet(key: string): Promise<Response> {
  const gcs = new Storage({ projectId: "easel-test", apiEndpoint: gcsStore.origin, credentials: { client_email: clientEmail, private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString() } });
  const now = clock();
  const [signed] = await gcs.bucket("easel").file(key).getSignedUrl({ version: "v4", action: "read", accessibleAt: now, expires: now.getTime() + 600_000 });
  const u = new URL(signed);
  return fetch(`${gcsStore.origin}${GCS_MOUNT_PATH}${u.pathname}${u.search}`);
}

const damages = {
  removed: (file: string) => fs.rmSync(file),
  truncated: (file: string) => fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2)),
  grown: (file: string) => fs.appendFileSync(file, "x"),
};

describe.each(Object.entries(damages))("an object whose data file was %s", (how, damage) => {
  it("is no such key on the S3 endpoint (HEAD, GET, ranged GET, copy source) and on the GCS endpoint; each finding is logged with the key", async () => {
    const key = `ws/1/originals/${how}.bin`;
    const bytes = crypto.randomBytes(64 * 1024);
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: key, Body: bytes }));
    expect((await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: key }))).ContentLength).toBe(bytes.length);
    const [file] = await dataFiles(s3Store.lay, key);
    damage(file);

    const logs = captureLogs();
    try {
      expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: key })))).toEqual({ name: "NotFound", status: 404 });
      expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: "easel", Key: key })))).toEqual({ name: "NoSuchKey", status: 404 });
      expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: "easel", Key: key, Range: "bytes=0-9" })))).toEqual({ name: "NoSuchKey", status: 404 });
      expect(await s3Failure(s3.send(new CopyObjectCommand({ Bucket: "easel", Key: `ws/1/copies/${how}.bin`, CopySource: `easel/${key}` })))).toEqual({ name: "NoSuchKey", status: 404 });
      expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: `ws/1/copies/${how}.bin` })))).toMatchObject({ status: 404 });
      const get = await gcsGet(key);
      expect(get.status).toBe(404);
      expect(await get.text()).toContain("<Code>NoSuchKey</Code>");
      const lines = logs.lines().filter((l) => l.component === "objectstore");
      expect(lines.length).toBeGreaterThanOrEqual(5);
      for (const line of lines) expect(line).toMatchObject({ level: "error", bucket: "easel", key, msg: expect.stringContaining("the object's bytes are gone") });
    } finally {
      logs.restore();
    }
  });

  it("is no object to the gcs driver's object access (head null; read, md5 and copy refused as storage_object_not_found)", async () => {
    const key = `ws/1/originals/local-${how}.bin`;
    const objects = localObjects(s3Store.lay, "easel", clock);
    await objects.write(key, crypto.randomBytes(10_000), "application/octet-stream");
    expect(await objects.head(key)).toMatchObject({ size: 10_000 });
    damage((await dataFiles(s3Store.lay, key))[0]);
    const logs = captureLogs();
    try {
      expect(await objects.head(key)).toBeNull();
      await expect(objects.read(key)).rejects.toMatchObject({ code: "storage_object_not_found" });
      await expect(objects.md5(key)).rejects.toMatchObject({ code: "storage_object_not_found" });
      await expect(objects.copy(key, `${key}.copy`)).rejects.toMatchObject({ code: "storage_object_not_found" });
      expect(await objects.head(`${key}.copy`)).toBeNull();
    } finally {
      logs.restore();
    }
  });
});

describe("multipart objects and recovery", () => {
  it("a multipart object missing any one of its segments is no such key; the others alone are not served", async () => {
    const key = "ws/1/originals/parts.bin";
    const parts = [crypto.randomBytes(5 * MiB), crypto.randomBytes(5 * MiB), crypto.randomBytes(1000)];
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key: key }));
    const etags: string[] = [];
    for (const [i, Body] of parts.entries()) etags.push((await s3.send(new UploadPartCommand({ Bucket: "easel", Key: key, UploadId, PartNumber: i + 1, Body }))).ETag!);
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: key, UploadId, MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) } }));
    const files = await dataFiles(s3Store.lay, key);
    expect(files).toHaveLength(3);
    fs.rmSync(files[1]);
    const logs = captureLogs();
    try {
      expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: key })))).toMatchObject({ status: 404 });
      // A range inside the first (intact) segment is refused too: the object as a whole is gone.
      expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: "easel", Key: key, Range: "bytes=0-99" })))).toEqual({ name: "NoSuchKey", status: 404 });
      expect(logs.lines().map((l) => l.msg).join("\n")).toMatch(/\.2\.data is missing/);
    } finally {
      logs.restore();
    }
  });

  it("a presigned upload of the very bytes recorded restores a lost object; other bytes are still refused (412)", async () => {
    const key = "ws/1/originals/restored.bin";
    const bytes = crypto.randomBytes(100_000);
    const presignedPut = () => getSignedUrl(s3, new PutObjectCommand({ Bucket: "easel", Key: key }), { expiresIn: 600, signingDate: clock() });
    expect((await fetch(await presignedPut(), { method: "PUT", body: new Uint8Array(bytes) })).status).toBe(200);
    const before = (await inspectObject(s3Store.lay, "easel", key))!.record as ObjectRecord;
    fs.rmSync((await dataFiles(s3Store.lay, key))[0]);
    const logs = captureLogs();
    try {
      expect((await fetch(await presignedPut(), { method: "PUT", body: new Uint8Array(crypto.randomBytes(100_000)) })).status).toBe(412);
      expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: key })))).toMatchObject({ status: 404 });
    } finally {
      logs.restore();
    }
    expect((await fetch(await presignedPut(), { method: "PUT", body: new Uint8Array(bytes) })).status).toBe(200);
    const after = await inspectObject(s3Store.lay, "easel", key);
    expect(after).toMatchObject({ damage: null, record: { size: before.size, md5: md5Hex(bytes) } });
    expect((await storedBytes(s3Store.lay, key)).equals(bytes)).toBe(true);
  });

  it("a GET that started on an intact object finishes with its bytes, though the object is replaced and deleted meanwhile", async () => {
    const key = "ws/1/originals/reading.bin";
    const bytes = crypto.randomBytes(3 * MiB);
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: key, Body: bytes }));
    const reading = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: key }));
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: key, Body: "other" }));
    expect((await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: key }))).ContentLength).toBe(5); // the new record is intact
    await s3.send(new DeleteObjectCommand({ Bucket: "easel", Key: key }));
    expect(Buffer.from(await reading.Body!.transformToByteArray()).equals(bytes)).toBe(true);
  });
});
