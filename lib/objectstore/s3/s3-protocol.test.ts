import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListMultipartUploadsCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checksumOf } from "../disk/checksum-algorithms";
import { md5Hex, movableClock, startS3Store, tempDir, tmpLeftovers, type StoreServer } from "../testing/fixtures";

// The embedded store's S3 endpoint, driven by the real AWS SDK (and by raw HTTP where a client
// would misbehave). Credentials are fixed here; the database-backed ones are covered by the driver tests.
const credentials = { accessKeyId: "EASELTESTKEY", secretAccessKey: "test-secret-key" };
const clock = movableClock();
const MiB = 1024 * 1024;
let store: StoreServer;
let s3: S3Client;

const client = (creds = credentials) =>
  new S3Client({
    endpoint: store.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: creds,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 1,
  });

/** The S3 error an SDK call fails with: its code and HTTP status. */
async function s3Failure(p: Promise<unknown>): Promise<{ name: string; status: number | undefined }> {
  try {
    await p;
  } catch (err) {
    const e = err as { name: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode };
  }
  throw new Error("expected the call to fail");
}

/** A presigned URL at the test clock (each command type narrowed so the presigner's generics resolve). */
function presign(command: PutObjectCommand | UploadPartCommand | HeadObjectCommand, expiresIn = 900): Promise<string> {
  const options = { expiresIn, signingDate: clock() };
  if (command instanceof PutObjectCommand) return getSignedUrl(s3, command, options);
  if (command instanceof UploadPartCommand) return getSignedUrl(s3, command, options);
  return getSignedUrl(s3, command, options);
}

beforeAll(async () => {
  store = await startS3Store({ root: tempDir("s3-protocol"), credentials: async () => credentials, clock });
  s3 = client();
  await s3.send(new CreateBucketCommand({ Bucket: "easel" }));
});

afterAll(async () => {
  s3?.destroy();
  await store?.close();
});

describe("buckets", () => {
  it("creates, heads, lists and deletes buckets with S3's answers", async () => {
    await s3.send(new CreateBucketCommand({ Bucket: "scratch-bucket" }));
    expect((await s3.send(new HeadBucketCommand({ Bucket: "scratch-bucket" }))).$metadata.httpStatusCode).toBe(200);
    expect(await s3Failure(s3.send(new CreateBucketCommand({ Bucket: "scratch-bucket" })))).toEqual({ name: "BucketAlreadyOwnedByYou", status: 409 });
    expect(await s3Failure(s3.send(new CreateBucketCommand({ Bucket: "Not_Valid" })))).toEqual({ name: "InvalidBucketName", status: 400 });
    // Names that are paths, not buckets, are refused before any file is touched.
    for (const Bucket of ["..", ".uploads", "%2E%2E"]) {
      expect(await s3Failure(s3.send(new PutObjectCommand({ Bucket, Key: "k", Body: "x" })))).toMatchObject({ status: 404 });
    }
    const listed = await s3.send(new ListBucketsCommand({}));
    expect(listed.Buckets?.map((b) => b.Name)).toEqual(expect.arrayContaining(["easel", "scratch-bucket"]));

    await s3.send(new PutObjectCommand({ Bucket: "scratch-bucket", Key: "k", Body: "x" }));
    expect(await s3Failure(s3.send(new DeleteBucketCommand({ Bucket: "scratch-bucket" })))).toEqual({ name: "BucketNotEmpty", status: 409 });
    await s3.send(new DeleteObjectCommand({ Bucket: "scratch-bucket", Key: "k" }));
    await s3.send(new DeleteBucketCommand({ Bucket: "scratch-bucket" }));
    expect(await s3Failure(s3.send(new HeadBucketCommand({ Bucket: "scratch-bucket" })))).toMatchObject({ status: 404 });
    expect(await s3Failure(s3.send(new PutObjectCommand({ Bucket: "scratch-bucket", Key: "k", Body: "x" })))).toEqual({ name: "NoSuchBucket", status: 404 });
  });
});

describe("objects", () => {
  it("stores a header-signed PUT and serves it back with its ETag, type and metadata", async () => {
    const body = crypto.randomBytes(100_000);
    const put = await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "dir/a b+c!.bin", Body: body, ContentType: "application/x-test", Metadata: { origin: "test" } }));
    expect(put.ETag).toBe(`"${md5Hex(body)}"`);
    const head = await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "dir/a b+c!.bin" }));
    expect(head).toMatchObject({ ContentLength: body.length, ETag: `"${md5Hex(body)}"`, ContentType: "application/x-test", Metadata: { origin: "test" } });
    const got = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "dir/a b+c!.bin" }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
  });

  it("answers byte ranges (closed, open-ended, suffix) and 416 past the end", async () => {
    const body = crypto.randomBytes(10_000);
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "ranges.bin", Body: body }));
    const get = async (Range: string) => {
      const out = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "ranges.bin", Range }));
      return { range: out.ContentRange, bytes: Buffer.from(await out.Body!.transformToByteArray()) };
    };
    expect(await get("bytes=10-19")).toEqual({ range: "bytes 10-19/10000", bytes: body.subarray(10, 20) });
    expect(await get("bytes=9990-")).toEqual({ range: "bytes 9990-9999/10000", bytes: body.subarray(9990) });
    expect(await get("bytes=-5")).toEqual({ range: "bytes 9995-9999/10000", bytes: body.subarray(9995) });
    expect(await get("bytes=9000-20000")).toEqual({ range: "bytes 9000-9999/10000", bytes: body.subarray(9000) });
    expect(await s3Failure(get("bytes=10000-"))).toEqual({ name: "InvalidRange", status: 416 });
  });

  it("marks object answers no-transform, so no server or proxy compresses stored bytes", async () => {
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "plain.txt", Body: "x".repeat(5000), ContentType: "text/plain" }));
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "cached.txt", Body: "y", CacheControl: "max-age=60" }));
    expect((await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "plain.txt" }))).CacheControl).toBe("no-cache, no-transform");
    expect((await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "cached.txt" }))).CacheControl).toBe("max-age=60, no-transform");
  });

  it("answers conditional GETs (If-None-Match → 304, If-Match mismatch → 412)", async () => {
    const put = await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "cond.txt", Body: "v1" }));
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: "easel", Key: "cond.txt", IfNoneMatch: put.ETag })))).toMatchObject({ status: 304 });
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: "easel", Key: "cond.txt", IfMatch: '"0000"' })))).toEqual({ name: "PreconditionFailed", status: 412 });
    expect((await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "cond.txt", IfMatch: put.ETag }))).$metadata.httpStatusCode).toBe(200);
  });

  it("answers NoSuchKey for a missing object and deletes idempotently", async () => {
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: "easel", Key: "missing" })))).toEqual({ name: "NoSuchKey", status: 404 });
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "missing" })))).toMatchObject({ name: "NotFound", status: 404 });
    expect((await s3.send(new DeleteObjectCommand({ Bucket: "easel", Key: "missing" }))).$metadata.httpStatusCode).toBe(204);
  });

  it("copies objects server-side, keeping metadata unless told to replace it", async () => {
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "copy/src", Body: "source bytes", ContentType: "text/plain", Metadata: { a: "1" } }));
    await s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "copy/same", CopySource: "easel/copy/src" }));
    expect(await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "copy/same" }))).toMatchObject({ ContentType: "text/plain", Metadata: { a: "1" }, ContentLength: 12 });
    await s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "copy/new", CopySource: "easel/copy/src", MetadataDirective: "REPLACE", ContentType: "text/x-other", Metadata: { b: "2" } }));
    expect(await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "copy/new" }))).toMatchObject({ ContentType: "text/x-other", Metadata: { b: "2" } });
    expect(await s3Failure(s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "copy/x", CopySource: "easel/copy/none" })))).toEqual({ name: "NoSuchKey", status: 404 });
  });

  it("refuses copying an object onto itself unchanged (400 InvalidRequest) and allows it with REPLACE", async () => {
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "copy/self", Body: "self bytes", ContentType: "text/plain", Metadata: { a: "1" } }));
    const before = await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "copy/self" }));
    expect(await s3Failure(s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "copy/self", CopySource: "easel/copy/self" })))).toEqual({ name: "InvalidRequest", status: 400 });
    expect(await s3Failure(s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "copy/self", CopySource: "easel/copy/self", MetadataDirective: "COPY" })))).toEqual({ name: "InvalidRequest", status: 400 });
    expect(await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "copy/self" }))).toMatchObject({ ETag: before.ETag, Metadata: { a: "1" }, LastModified: before.LastModified });
    await s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "copy/self", CopySource: "easel/copy/self", MetadataDirective: "REPLACE", ContentType: "text/x-other", Metadata: { b: "2" } }));
    const after = await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "copy/self" }));
    expect(after).toMatchObject({ ETag: before.ETag, ContentType: "text/x-other", Metadata: { b: "2" }, ContentLength: 10 });
  });

  it("copies an object onto itself when the request names a storage class (even its own, as on S3), keeping its metadata", async () => {
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "copy/self-class", Body: "class bytes", ContentType: "text/plain", Metadata: { a: "1" } }));
    const before = await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "copy/self-class" }));
    clock.advance(5_000);
    try {
      const copied = await s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "copy/self-class", CopySource: "easel/copy/self-class", StorageClass: "STANDARD" }));
      expect(copied.CopyObjectResult?.ETag).toBe(before.ETag);
    } finally {
      clock.advance(-5_000);
    }
    const after = await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "copy/self-class" }));
    expect(after).toMatchObject({ ETag: before.ETag, ContentType: "text/plain", Metadata: { a: "1" }, ContentLength: 11 });
    expect(after.LastModified!.getTime()).toBeGreaterThan(before.LastModified!.getTime());
  });

  it("a new checksum algorithm alone does not make a copy onto itself legal (400); with a storage class named, the copy computes it", async () => {
    const bytes = Buffer.from("checksum me in place");
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "copy/self-sum", Body: bytes }));
    const copy = (extra: { StorageClass?: "STANDARD" }) =>
      s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "copy/self-sum", CopySource: "easel/copy/self-sum", ChecksumAlgorithm: "CRC32C", ...extra }));
    expect(await s3Failure(copy({}))).toEqual({ name: "InvalidRequest", status: 400 });
    expect((await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "copy/self-sum", ChecksumMode: "ENABLED" }))).ChecksumCRC32C).toBeUndefined();
    const expected = (await checksumOf("crc32c", bytes)).toString("base64");
    expect((await copy({ StorageClass: "STANDARD" })).CopyObjectResult?.ChecksumCRC32C).toBe(expected);
    expect((await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "copy/self-sum", ChecksumMode: "ENABLED" }))).ChecksumCRC32C).toBe(expected);
  });

  it("keeps every object STANDARD: another storage class is refused (400 InvalidStorageClass) on PutObject, CopyObject and CreateMultipartUpload, changing nothing", async () => {
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "class/kept", Body: "kept", StorageClass: "STANDARD" }));
    const before = await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "class/kept" }));
    const refused = { name: "InvalidStorageClass", status: 400 };
    expect(await s3Failure(s3.send(new PutObjectCommand({ Bucket: "easel", Key: "class/cold", Body: "cold", StorageClass: "GLACIER" })))).toEqual(refused);
    expect(await s3Failure(s3.send(new PutObjectCommand({ Bucket: "easel", Key: "class/kept", Body: "other", StorageClass: "STANDARD_IA" })))).toEqual(refused);
    expect(await s3Failure(s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "class/kept", CopySource: "easel/class/kept", StorageClass: "DEEP_ARCHIVE" })))).toEqual(refused);
    expect(await s3Failure(s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "class/copy", CopySource: "easel/class/kept", StorageClass: "ONEZONE_IA" })))).toEqual(refused);
    expect(await s3Failure(s3.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key: "class/mpu", StorageClass: "INTELLIGENT_TIERING" })))).toEqual(refused);
    for (const Key of ["class/cold", "class/copy"]) expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key })))).toMatchObject({ status: 404 });
    expect(await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "class/kept" }))).toMatchObject({ ETag: before.ETag, LastModified: before.LastModified });
    expect((await s3.send(new ListMultipartUploadsCommand({ Bucket: "easel", Prefix: "class/" }))).Uploads ?? []).toEqual([]);
    expect(tmpLeftovers(store.lay)).toEqual([]);
  });

  it("answers max-keys=0 with an empty, untruncated listing (v1 and v2)", async () => {
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "zero/a", Body: "a" }));
    const v2 = await s3.send(new ListObjectsV2Command({ Bucket: "easel", Prefix: "zero/", MaxKeys: 0 }));
    expect(v2).toMatchObject({ KeyCount: 0, IsTruncated: false, MaxKeys: 0 });
    expect(v2.Contents ?? []).toEqual([]);
    expect(v2.NextContinuationToken).toBeUndefined();
    const v1 = await s3.send(new ListObjectsCommand({ Bucket: "easel", Prefix: "zero/", MaxKeys: 0 }));
    expect(v1).toMatchObject({ IsTruncated: false, MaxKeys: 0 });
    expect(v1.Contents ?? []).toEqual([]);
    await s3.send(new DeleteObjectCommand({ Bucket: "easel", Key: "zero/a" }));
  });

  it("echoes a v1 listing's prefix as given, and URL-encoded only with encoding-type=url", async () => {
    const prefix = "enc dir/é+&";
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: `${prefix}1`, Body: "x" }));
    const listed = async (encodingType?: "url") => {
      const url = await getSignedUrl(s3, new ListObjectsCommand({ Bucket: "easel", Prefix: prefix, EncodingType: encodingType }), { signingDate: clock() });
      const res = await fetch(url);
      expect(res.status).toBe(200);
      const body = await res.text();
      return { prefix: /<Prefix>([^<]*)<\/Prefix>/.exec(body)?.[1], key: /<Key>([^<]*)<\/Key>/.exec(body)?.[1] };
    };
    expect(await listed()).toEqual({ prefix: "enc dir/é+&amp;", key: "enc dir/é+&amp;1" });
    expect(await listed("url")).toEqual({ prefix: encodeURIComponent(prefix).replace(/%2F/g, "/"), key: `${encodeURIComponent(prefix).replace(/%2F/g, "/")}1` });
    await s3.send(new DeleteObjectCommand({ Bucket: "easel", Key: `${prefix}1` }));
  });

  it("reads back every key the SDK escapes in a DeleteObjects body (entities and character references)", async () => {
    // The SDK writes &, <, >, quotes as entities and CR, LF, NEL, LS as character references.
    const keys = ["ent/a&b<c>d\"e'f", "ent/line\r\nbreak\ttab", "ent/nel\u0085ls\u2028", "ent/é/\u{1F600}", "ent/&amp;literal"];
    for (const Key of keys) await s3.send(new PutObjectCommand({ Bucket: "easel", Key, Body: "x" }));
    const deleted = await s3.send(new DeleteObjectsCommand({ Bucket: "easel", Delete: { Objects: keys.map((Key) => ({ Key })) } }));
    expect(deleted.Deleted?.map((d) => d.Key).sort()).toEqual([...keys].sort());
    expect(deleted.Errors ?? []).toEqual([]);
    expect((await s3.send(new ListObjectsV2Command({ Bucket: "easel", Prefix: "ent/" }))).KeyCount).toBe(0);
  });

  it("lists with prefix, delimiter and continuation tokens, and deletes in bulk", async () => {
    const keys = ["list/a/1", "list/a/2", "list/b", "list/c/1", "list/d", "list/e"];
    for (const Key of keys) await s3.send(new PutObjectCommand({ Bucket: "easel", Key, Body: Key }));
    const rolled = await s3.send(new ListObjectsV2Command({ Bucket: "easel", Prefix: "list/", Delimiter: "/" }));
    expect(rolled.Contents?.map((c) => c.Key)).toEqual(["list/b", "list/d", "list/e"]);
    expect(rolled.CommonPrefixes?.map((c) => c.Prefix)).toEqual(["list/a/", "list/c/"]);
    expect(rolled.KeyCount).toBe(5);

    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: "easel", Prefix: "list/", Delimiter: "/", MaxKeys: 2, ContinuationToken: token }));
      seen.push(...(page.CommonPrefixes ?? []).map((p) => p.Prefix as string), ...(page.Contents ?? []).map((c) => c.Key as string));
      token = page.NextContinuationToken;
      expect(page.IsTruncated).toBe(token !== undefined);
    } while (token);
    expect(seen.sort()).toEqual(["list/a/", "list/b", "list/c/", "list/d", "list/e"]);

    const deleted = await s3.send(new DeleteObjectsCommand({ Bucket: "easel", Delete: { Objects: keys.map((Key) => ({ Key })) } }));
    expect(deleted.Deleted?.map((d) => d.Key).sort()).toEqual([...keys].sort());
    expect((await s3.send(new ListObjectsV2Command({ Bucket: "easel", Prefix: "list/" }))).KeyCount).toBe(0);
  });

  it("keeps serving a GET that started before the object was overwritten", async () => {
    const first = crypto.randomBytes(3 * MiB);
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "pinned.bin", Body: first }));
    const reading = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "pinned.bin" }));
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "pinned.bin", Body: "second" }));
    await s3.send(new DeleteObjectCommand({ Bucket: "easel", Key: "pinned.bin" }));
    expect(Buffer.from(await reading.Body!.transformToByteArray()).equals(first)).toBe(true);
  });
});

describe("signatures", () => {
  it("accepts a presigned PUT and refuses it once tampered with (403 SignatureDoesNotMatch, S3 XML)", async () => {
    const url = await presign(new PutObjectCommand({ Bucket: "easel", Key: "signed/one.txt" }));
    const tampered = url.replace(/X-Amz-Signature=([0-9a-f])/, (_, c: string) => `X-Amz-Signature=${c === "0" ? "1" : "0"}`);
    const bad = await fetch(tampered, { method: "PUT", body: "nope" });
    expect(bad.status).toBe(403);
    const xml = await bad.text();
    expect(xml).toContain("<Code>SignatureDoesNotMatch</Code>");
    expect(xml).toMatch(/^<\?xml/);
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "signed/one.txt" })))).toMatchObject({ status: 404 });

    const good = await fetch(url, { method: "PUT", body: "yes" });
    expect(good.status).toBe(200);
    expect(good.headers.get("etag")).toBe(`"${md5Hex(Buffer.from("yes"))}"`);
  });

  it("answers a refused upload in full and keeps the connection usable", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (url: string, body: Buffer) =>
      new Promise<{ status: number; body: string; socket: unknown }>((resolve, reject) => {
        const u = new URL(url);
        const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: "PUT", agent, headers: { "content-length": body.length } }, (res) => {
          let text = "";
          res.on("data", (d) => (text += d));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, socket: req.socket }));
        });
        req.on("error", reject);
        req.end(body);
      });
    const url = await presign(new PutObjectCommand({ Bucket: "easel", Key: "signed/keepalive.bin" }));
    const refused = await send(url.replace(/X-Amz-Signature=([0-9a-f])/, (_, c: string) => `X-Amz-Signature=${c === "0" ? "1" : "0"}`), crypto.randomBytes(2 * MiB));
    expect(refused.status).toBe(403);
    expect(refused.body).toContain("SignatureDoesNotMatch");
    const accepted = await send(url, Buffer.from("ok"));
    expect(accepted.status).toBe(200);
    expect(accepted.socket).toBe(refused.socket);
    agent.destroy();
  });

  it("refuses a presigned URL for another key, method or bucket", async () => {
    const url = await presign(new PutObjectCommand({ Bucket: "easel", Key: "signed/two.txt" }));
    expect((await fetch(url.replace("signed/two.txt", "signed/three.txt"), { method: "PUT", body: "x" })).status).toBe(403);
    expect((await fetch(url, { method: "GET" })).status).toBe(403);
  });

  it("refuses an expired presigned URL by Easel's clock (403 AccessDenied)", async () => {
    const url = await presign(new PutObjectCommand({ Bucket: "easel", Key: "signed/late.txt" }), 60);
    clock.advance(61_000);
    try {
      const res = await fetch(url, { method: "PUT", body: "late" });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain("Request has expired");
    } finally {
      clock.advance(-61_000);
    }
  });

  it("refuses anonymous requests, unknown keys, wrong secrets and skewed clocks", async () => {
    expect((await fetch(`${store.endpoint}/easel/anything`, { method: "PUT", body: "x" })).status).toBe(403);
    const stranger = client({ accessKeyId: "SOMEONEELSE", secretAccessKey: credentials.secretAccessKey });
    expect(await s3Failure(stranger.send(new PutObjectCommand({ Bucket: "easel", Key: "x", Body: "x" })))).toEqual({ name: "InvalidAccessKeyId", status: 403 });
    const wrongSecret = client({ accessKeyId: credentials.accessKeyId, secretAccessKey: "not-the-secret" });
    expect(await s3Failure(wrongSecret.send(new PutObjectCommand({ Bucket: "easel", Key: "x", Body: "x" })))).toEqual({ name: "SignatureDoesNotMatch", status: 403 });
    const skewed = client();
    skewed.config.systemClockOffset = -3600_000;
    // The SDK corrects its clock after a skew error and retries; with one attempt the error shows.
    expect(await s3Failure(skewed.send(new PutObjectCommand({ Bucket: "easel", Key: "x", Body: "x" })))).toEqual({ name: "RequestTimeTooSkewed", status: 403 });
    for (const c of [stranger, wrongSecret, skewed]) c.destroy();
  });

  it("refuses a body whose Content-MD5 does not match, storing nothing (400 BadDigest)", async () => {
    const url = await presign(new PutObjectCommand({ Bucket: "easel", Key: "signed/digest.txt" }));
    const res = await fetch(url, { method: "PUT", body: "actual body", headers: { "content-md5": crypto.createHash("md5").update("other").digest("base64") } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("<Code>BadDigest</Code>");
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "signed/digest.txt" })))).toMatchObject({ status: 404 });
    expect(tmpLeftovers(store.lay)).toEqual([]);
  });
});

describe("multipart uploads", () => {
  const create = async (Key: string) => (await s3.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key, ContentType: "application/x-parts" }))).UploadId as string;

  it("uploads parts, lists them, completes, and serves the assembled object with S3's multipart ETag", async () => {
    const part1 = crypto.randomBytes(5 * MiB);
    const part2 = crypto.randomBytes(1234);
    const UploadId = await create("mp/object.bin");
    // Part 2 first: parts may arrive in any order.
    const e2 = await s3.send(new UploadPartCommand({ Bucket: "easel", Key: "mp/object.bin", UploadId, PartNumber: 2, Body: part2 }));
    const url1 = await presign(new UploadPartCommand({ Bucket: "easel", Key: "mp/object.bin", UploadId, PartNumber: 1 }));
    const put1 = await fetch(url1, { method: "PUT", body: part1 });
    expect(put1.status).toBe(200);
    expect(put1.headers.get("etag")).toBe(`"${md5Hex(part1)}"`);
    expect(e2.ETag).toBe(`"${md5Hex(part2)}"`);

    const listed = await s3.send(new ListPartsCommand({ Bucket: "easel", Key: "mp/object.bin", UploadId }));
    expect(listed.Parts?.map((p) => [p.PartNumber, p.Size, p.ETag])).toEqual([
      [1, part1.length, `"${md5Hex(part1)}"`],
      [2, part2.length, `"${md5Hex(part2)}"`],
    ]);
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: "easel", Prefix: "mp/" }));
    expect(uploads.Uploads?.map((u) => u.UploadId)).toContain(UploadId);

    const done = await s3.send(
      new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "mp/object.bin", UploadId, MultipartUpload: { Parts: listed.Parts!.map(({ PartNumber, ETag }) => ({ PartNumber, ETag })) } }),
    );
    const partsDigest = crypto.createHash("md5").update(Buffer.concat([Buffer.from(md5Hex(part1), "hex"), Buffer.from(md5Hex(part2), "hex")])).digest("hex");
    expect(done.ETag).toBe(`"${partsDigest}-2"`);

    const whole = Buffer.concat([part1, part2]);
    const got = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "mp/object.bin" }));
    expect(got.ContentType).toBe("application/x-parts");
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(whole)).toBe(true);
    // A range across the boundary between the two parts.
    const across = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "mp/object.bin", Range: `bytes=${5 * MiB - 10}-${5 * MiB + 9}` }));
    expect(Buffer.from(await across.Body!.transformToByteArray()).equals(whole.subarray(5 * MiB - 10, 5 * MiB + 10))).toBe(true);
    // The whole object's md5, as the store recorded it while the parts streamed in.
    const head = await fetch(await presign(new HeadObjectCommand({ Bucket: "easel", Key: "mp/object.bin" })), { method: "HEAD" });
    expect(Buffer.from(head.headers.get("content-md5") as string, "base64").toString("hex")).toBe(md5Hex(whole));
    // Completed: the upload is gone.
    expect(await s3Failure(s3.send(new ListPartsCommand({ Bucket: "easel", Key: "mp/object.bin", UploadId })))).toEqual({ name: "NoSuchUpload", status: 404 });
  });

  it("answers a completion sent again with the same result while the object is still that upload's, NoSuchUpload after", async () => {
    const Key = "mp/again.bin";
    const UploadId = await create(Key);
    const part = await s3.send(new UploadPartCommand({ Bucket: "easel", Key, UploadId, PartNumber: 1, Body: "only part" }));
    const complete = () => s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] } }));
    const uploadJson = path.join(store.lay.uploadDir(UploadId), "upload.json");
    const uploadRecord = fs.readFileSync(uploadJson);
    const first = await complete();
    // A crash after the object's commit but before the upload's folder went leaves that folder.
    fs.mkdirSync(path.dirname(uploadJson), { recursive: true });
    fs.writeFileSync(uploadJson, uploadRecord);
    const again = await complete();
    expect(fs.existsSync(path.dirname(uploadJson))).toBe(false);
    expect(again.$metadata.httpStatusCode).toBe(200);
    expect({ ETag: again.ETag, Location: again.Location, Bucket: again.Bucket, Key: again.Key }).toEqual({ ETag: first.ETag, Location: first.Location, Bucket: "easel", Key });
    const got = await s3.send(new GetObjectCommand({ Bucket: "easel", Key }));
    expect(await got.Body!.transformToString()).toBe("only part");
    // The upload stays gone for everything else.
    expect(await s3Failure(s3.send(new ListPartsCommand({ Bucket: "easel", Key, UploadId })))).toEqual({ name: "NoSuchUpload", status: 404 });
    // Once the key holds another object, the upload is unknown again.
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key, Body: "replaced" }));
    expect(await s3Failure(complete())).toEqual({ name: "NoSuchUpload", status: 404 });
    await s3.send(new DeleteObjectCommand({ Bucket: "easel", Key }));
    expect(await s3Failure(complete())).toEqual({ name: "NoSuchUpload", status: 404 });
  });

  it("answers two completions racing for one upload both with its result", async () => {
    const Key = "mp/race.bin";
    const UploadId = await create(Key);
    const part = await s3.send(new UploadPartCommand({ Bucket: "easel", Key, UploadId, PartNumber: 1, Body: "raced part" }));
    const complete = () => s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] } }));
    const [a, b] = await Promise.all([complete(), complete()]);
    expect(a.ETag).toBe(`"${crypto.createHash("md5").update(Buffer.from(md5Hex(Buffer.from("raced part")), "hex")).digest("hex")}-1"`);
    expect(b.ETag).toBe(a.ETag);
  });

  it("replaces a part sent twice under the same number", async () => {
    const UploadId = await create("mp/replaced.bin");
    await s3.send(new UploadPartCommand({ Bucket: "easel", Key: "mp/replaced.bin", UploadId, PartNumber: 1, Body: "first" }));
    const second = await s3.send(new UploadPartCommand({ Bucket: "easel", Key: "mp/replaced.bin", UploadId, PartNumber: 1, Body: "second!" }));
    const listed = await s3.send(new ListPartsCommand({ Bucket: "easel", Key: "mp/replaced.bin", UploadId }));
    expect(listed.Parts?.map((p) => [p.PartNumber, p.Size])).toEqual([[1, 7]]);
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "mp/replaced.bin", UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: second.ETag }] } }));
    const got = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "mp/replaced.bin" }));
    expect(await got.Body!.transformToString()).toBe("second!");
  });

  it("refuses completions that name a missing part, a wrong ETag, parts out of order, or a small middle part", async () => {
    const Key = "mp/refused.bin";
    const UploadId = await create(Key);
    const small = await s3.send(new UploadPartCommand({ Bucket: "easel", Key, UploadId, PartNumber: 1, Body: "tiny" }));
    const last = await s3.send(new UploadPartCommand({ Bucket: "easel", Key, UploadId, PartNumber: 2, Body: "end" }));
    const complete = (Parts: { PartNumber: number; ETag?: string }[]) => s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key, UploadId, MultipartUpload: { Parts } }));
    expect(await s3Failure(complete([{ PartNumber: 3, ETag: last.ETag }]))).toEqual({ name: "InvalidPart", status: 400 });
    expect(await s3Failure(complete([{ PartNumber: 1, ETag: '"00000000000000000000000000000000"' }]))).toEqual({ name: "InvalidPart", status: 400 });
    expect(await s3Failure(complete([{ PartNumber: 2, ETag: last.ETag }, { PartNumber: 1, ETag: small.ETag }]))).toEqual({ name: "InvalidPartOrder", status: 400 });
    expect(await s3Failure(complete([{ PartNumber: 1, ETag: small.ETag }, { PartNumber: 2, ETag: last.ETag }]))).toEqual({ name: "EntityTooSmall", status: 400 });
    // Nothing became visible, and the upload is still there to fix.
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key })))).toMatchObject({ status: 404 });
    expect((await s3.send(new ListPartsCommand({ Bucket: "easel", Key, UploadId }))).Parts).toHaveLength(2);
    await complete([{ PartNumber: 2, ETag: last.ETag }]);
    expect(await (await s3.send(new GetObjectCommand({ Bucket: "easel", Key }))).Body!.transformToString()).toBe("end");
  });

  it("aborts: the upload and its parts are gone, and new parts are refused", async () => {
    const Key = "mp/aborted.bin";
    const UploadId = await create(Key);
    await s3.send(new UploadPartCommand({ Bucket: "easel", Key, UploadId, PartNumber: 1, Body: "x" }));
    await s3.send(new AbortMultipartUploadCommand({ Bucket: "easel", Key, UploadId }));
    expect(await s3Failure(s3.send(new ListPartsCommand({ Bucket: "easel", Key, UploadId })))).toEqual({ name: "NoSuchUpload", status: 404 });
    expect(await s3Failure(s3.send(new UploadPartCommand({ Bucket: "easel", Key, UploadId, PartNumber: 2, Body: "y" })))).toEqual({ name: "NoSuchUpload", status: 404 });
    expect(await s3Failure(s3.send(new AbortMultipartUploadCommand({ Bucket: "easel", Key, UploadId })))).toEqual({ name: "NoSuchUpload", status: 404 });
    expect(fs.existsSync(store.lay.uploadDir(UploadId))).toBe(false);
  });

  it("binds an upload id to its own key, and checks part numbers", async () => {
    const UploadId = await create("mp/owner.bin");
    expect(await s3Failure(s3.send(new UploadPartCommand({ Bucket: "easel", Key: "mp/other.bin", UploadId, PartNumber: 1, Body: "x" })))).toEqual({ name: "NoSuchUpload", status: 404 });
    expect(await s3Failure(s3.send(new UploadPartCommand({ Bucket: "easel", Key: "mp/owner.bin", UploadId, PartNumber: 10_001, Body: "x" })))).toEqual({ name: "InvalidArgument", status: 400 });
    expect(await s3Failure(s3.send(new ListPartsCommand({ Bucket: "easel", Key: "mp/owner.bin", UploadId: "../../etc" })))).toEqual({ name: "NoSuchUpload", status: 404 });
  });

  it("a client that aborts mid-part leaves no part and no temp file, and the server carries on", async () => {
    const Key = "mp/interrupted.bin";
    const UploadId = await create(Key);
    const url = new URL(await presign(new UploadPartCommand({ Bucket: "easel", Key, UploadId, PartNumber: 1 })));
    await new Promise<void>((resolve) => {
      const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: "PUT", headers: { "content-length": 8 * MiB } });
      req.on("error", () => resolve());
      req.write(crypto.randomBytes(MiB), () => setTimeout(() => {
        req.destroy();
        resolve();
      }, 100));
    });
    // The server notices the closed connection asynchronously.
    for (let i = 0; i < 50 && tmpLeftovers(store.lay).length; i++) await new Promise((r) => setTimeout(r, 20));
    expect(tmpLeftovers(store.lay)).toEqual([]);
    expect((await s3.send(new ListPartsCommand({ Bucket: "easel", Key, UploadId }))).Parts ?? []).toEqual([]);
    const retry = await s3.send(new UploadPartCommand({ Bucket: "easel", Key, UploadId, PartNumber: 1, Body: "retried" }));
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: retry.ETag }] } }));
    expect(await (await s3.send(new GetObjectCommand({ Bucket: "easel", Key }))).Body!.transformToString()).toBe("retried");
  });

  it("a body shorter than its Content-Length is refused and nothing is stored", async () => {
    const url = new URL(await presign(new PutObjectCommand({ Bucket: "easel", Key: "short.bin" })));
    const status = await new Promise<number | null>((resolve) => {
      const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: "PUT", headers: { "content-length": 1000 } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? null);
      });
      req.on("error", () => resolve(null));
      req.end(Buffer.alloc(10), () => setTimeout(() => req.destroy(), 50));
    });
    // Either the server saw the connection close (no answer) or answered 400; never a stored object.
    expect([null, 400]).toContain(status);
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "short.bin" })))).toMatchObject({ status: 404 });
  });
});

describe("CORS", () => {
  it("answers preflights for any origin and exposes ETag on answers", async () => {
    const pre = await fetch(`${store.endpoint}/easel/some/key?partNumber=1&uploadId=x`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "PUT", "access-control-request-headers": "content-type" },
    });
    expect(pre.status).toBe(200);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-methods")).toContain("PUT");
    expect(pre.headers.get("access-control-allow-headers")).toBe("content-type");
    expect(pre.headers.get("access-control-expose-headers")).toContain("ETag");
    const put = await fetch(await presign(new PutObjectCommand({ Bucket: "easel", Key: "cors.txt" })), { method: "PUT", body: "x", headers: { origin: "https://app.example" } });
    expect(put.headers.get("access-control-allow-origin")).toBe("*");
    expect(put.headers.get("access-control-expose-headers")).toContain("ETag");
    const denied = await fetch(`${store.endpoint}/easel/cors.txt`);
    expect(denied.status).toBe(403);
    expect(denied.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("XML answers", () => {
  it("say nosniff on success as on errors: listings carry keys a tenant chose", async () => {
    const recorded = client();
    const seen: { command: string; type?: string; nosniff?: string }[] = [];
    recorded.middlewareStack.add(
      (next, context) => async (args) => {
        const out = await next(args);
        const headers = (out.response as { headers: Record<string, string> }).headers;
        seen.push({ command: String(context.commandName), type: headers["content-type"], nosniff: headers["x-content-type-options"] });
        return out;
      },
      { step: "deserialize", name: "recordAnswerHeaders" },
    );
    const key = `<script>alert(1)</script>/nosniff.html`;
    await recorded.send(new PutObjectCommand({ Bucket: "easel", Key: key, Body: "x" }));
    await recorded.send(new ListBucketsCommand({}));
    await recorded.send(new ListObjectsCommand({ Bucket: "easel", Prefix: "<script>" }));
    await recorded.send(new ListObjectsV2Command({ Bucket: "easel", Prefix: "<script>" }));
    await recorded.send(new CopyObjectCommand({ Bucket: "easel", Key: `${key}.copy`, CopySource: `easel/${encodeURIComponent(key)}` }));
    const { UploadId } = await recorded.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key: `${key}.parts` }));
    const part = await recorded.send(new UploadPartCommand({ Bucket: "easel", Key: `${key}.parts`, UploadId, PartNumber: 1, Body: "y" }));
    await recorded.send(new ListPartsCommand({ Bucket: "easel", Key: `${key}.parts`, UploadId }));
    await recorded.send(new ListMultipartUploadsCommand({ Bucket: "easel" }));
    await recorded.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: `${key}.parts`, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] } }));
    await recorded.send(new DeleteObjectsCommand({ Bucket: "easel", Delete: { Objects: [{ Key: key }, { Key: `${key}.copy` }, { Key: `${key}.parts` }] } }));
    const xmlAnswers = seen.filter((s) => s.type?.startsWith("application/xml"));
    expect(xmlAnswers.map((s) => s.command)).toEqual([
      "ListBucketsCommand",
      "ListObjectsCommand",
      "ListObjectsV2Command",
      "CopyObjectCommand",
      "CreateMultipartUploadCommand",
      "ListPartsCommand",
      "ListMultipartUploadsCommand",
      "CompleteMultipartUploadCommand",
      "DeleteObjectsCommand",
    ]);
    for (const s of xmlAnswers) expect(s, s.command).toMatchObject({ nosniff: "nosniff" });
  });
});
