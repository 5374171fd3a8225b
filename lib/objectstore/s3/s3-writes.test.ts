import crypto from "node:crypto";
import http from "node:http";
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  UploadPartCopyCommand,
} from "@aws-sdk/client-s3";
import { SignatureV4 } from "@smithy/signature-v4";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { md5Hex, movableClock, startS3Store, storedBytes, tempDir, tmpLeftovers, type StoreServer } from "../testing/fixtures";

// Conditional writes, UploadPartCopy, GET ?partNumber=, server-side encryption refused, and user
// metadata beyond ASCII: the embedded store's S3 endpoint driven by the real AWS SDK.
const credentials = { accessKeyId: "EASELTESTKEY", secretAccessKey: "test-secret-key" };
const clock = movableClock();
const MiB = 1024 * 1024;
let store: StoreServer;
let s3: S3Client;

async function s3Failure(p: Promise<unknown>): Promise<{ name: string; status: number | undefined }> {
  try {
    await p;
  } catch (err) {
    const e = err as { name: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode };
  }
  throw new Error("expected the call to fail");
}

const put = (Key: string, Body: Uint8Array | string, extra: Partial<ConstructorParameters<typeof PutObjectCommand>[0]> = {}) =>
  s3.send(new PutObjectCommand({ Bucket: "easel", Key, Body, ...extra }));
const etagOf = async (Key: string) => (await s3.send(new HeadObjectCommand({ Bucket: "easel", Key }))).ETag!;
const bytesOf = async (Key: string) => Buffer.from(await (await s3.send(new GetObjectCommand({ Bucket: "easel", Key }))).Body!.transformToByteArray());

/** A two-part multipart upload (5 MiB + `tail` bytes) of `key`, not yet completed. */
async function openUpload(key: string, tail = 1024) {
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key: key }));
  const bodies = [crypto.randomBytes(5 * MiB), crypto.randomBytes(tail)];
  const parts = [];
  for (const [i, Body] of bodies.entries()) {
    const { ETag } = await s3.send(new UploadPartCommand({ Bucket: "easel", Key: key, UploadId, PartNumber: i + 1, Body }));
    parts.push({ PartNumber: i + 1, ETag });
  }
  return { UploadId: UploadId!, parts, bytes: Buffer.concat(bodies) };
}

type CopySourceConditions = { CopySourceIfMatch?: string; CopySourceIfNoneMatch?: string; CopySourceIfModifiedSince?: Date; CopySourceIfUnmodifiedSince?: Date };

/**
 * Each `x-amz-copy-source-if-*` on its own, as [header, holding, failing] for the object at `key`:
 * the dates are its Last-Modified (whole seconds) and the second before it, both in the past.
 */
async function copySourceCases(key: string): Promise<[string, CopySourceConditions, CopySourceConditions][]> {
  const head = await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: key }));
  const at = head.LastModified!;
  const before = new Date(at.getTime() - 1000);
  const otherEtag = '"ffffffffffffffffffffffffffffffff"';
  return [
    ["if-match", { CopySourceIfMatch: head.ETag }, { CopySourceIfMatch: otherEtag }],
    ["if-none-match", { CopySourceIfNoneMatch: otherEtag }, { CopySourceIfNoneMatch: head.ETag }],
    ["if-unmodified-since", { CopySourceIfUnmodifiedSince: at }, { CopySourceIfUnmodifiedSince: before }],
    ["if-modified-since", { CopySourceIfModifiedSince: before }, { CopySourceIfModifiedSince: at }],
  ];
}

beforeAll(async () => {
  store = await startS3Store({ root: tempDir("s3-writes"), credentials: async () => credentials, clock });
  s3 = new S3Client({
    endpoint: store.endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 1,
  });
  await s3.send(new CreateBucketCommand({ Bucket: "easel" }));
});

afterAll(async () => {
  s3?.destroy();
  await store?.close();
});

describe("conditional writes", () => {
  it("If-None-Match: * creates once; the second write is 412 and changes nothing", async () => {
    expect((await put("cond/create", "first", { IfNoneMatch: "*" })).ETag).toBe(`"${md5Hex(Buffer.from("first"))}"`);
    expect(await s3Failure(put("cond/create", "second", { IfNoneMatch: "*" }))).toEqual({ name: "PreconditionFailed", status: 412 });
    expect((await bytesOf("cond/create")).toString()).toBe("first");
    expect(tmpLeftovers(store.lay)).toEqual([]);
  });

  it("If-None-Match with anything but * is not something S3 does on a write (501)", async () => {
    await put("cond/etag-none-match", "x");
    expect(await s3Failure(put("cond/etag-none-match", "y", { IfNoneMatch: `"${md5Hex(Buffer.from("x"))}"` }))).toEqual({ name: "NotImplemented", status: 501 });
    expect((await bytesOf("cond/etag-none-match")).toString()).toBe("x");
  });

  it("If-Match replaces only the object with that ETag; a missing object is 404", async () => {
    await put("cond/swap", "v1");
    const v1 = await etagOf("cond/swap");
    expect((await put("cond/swap", "v2", { IfMatch: v1 })).$metadata.httpStatusCode).toBe(200);
    expect(await s3Failure(put("cond/swap", "v3", { IfMatch: v1 }))).toEqual({ name: "PreconditionFailed", status: 412 });
    expect((await bytesOf("cond/swap")).toString()).toBe("v2");
    expect(await s3Failure(put("cond/never-written", "v1", { IfMatch: v1 }))).toEqual({ name: "NoSuchKey", status: 404 });
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "cond/never-written" })))).toMatchObject({ status: 404 });
  });

  it("of writers racing for a free key with If-None-Match: *, exactly one wins", async () => {
    const bodies = Array.from({ length: 6 }, (_, i) => crypto.randomBytes(256 * 1024 + i));
    const results = await Promise.allSettled(bodies.map((Body) => put("cond/race", Body, { IfNoneMatch: "*" })));
    const won = results.flatMap((r, i) => (r.status === "fulfilled" ? [i] : []));
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === "rejected") expect((r.reason as { name: string }).name).toBe("PreconditionFailed");
    expect((await bytesOf("cond/race")).equals(bodies[won[0]])).toBe(true);
    expect(tmpLeftovers(store.lay)).toEqual([]);
  });

  it("of compare-and-swaps racing on one ETag, exactly one wins", async () => {
    await put("cond/cas", "base");
    const base = await etagOf("cond/cas");
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => put("cond/cas", `next-${i}`, { IfMatch: base })));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });

  it("CompleteMultipartUpload honours If-None-Match and If-Match; a refused completion leaves the upload whole", async () => {
    await put("cond/mpu", "already here");
    const upload = await openUpload("cond/mpu");
    const complete = (extra: { IfNoneMatch?: string; IfMatch?: string }) =>
      s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "cond/mpu", UploadId: upload.UploadId, MultipartUpload: { Parts: upload.parts }, ...extra }));
    expect(await s3Failure(complete({ IfNoneMatch: "*" }))).toEqual({ name: "PreconditionFailed", status: 412 });
    expect(await s3Failure(complete({ IfMatch: '"0123456789abcdef0123456789abcdef"' }))).toEqual({ name: "PreconditionFailed", status: 412 });
    expect((await bytesOf("cond/mpu")).toString()).toBe("already here");
    const done = await complete({ IfMatch: await etagOf("cond/mpu") });
    expect(done.ETag).toMatch(/-2"$/);
    expect((await bytesOf("cond/mpu")).equals(upload.bytes)).toBe(true);
  });

  it("CompleteMultipartUpload with If-None-Match: * on a free key completes (200)", async () => {
    const upload = await openUpload("cond/mpu-free");
    const done = await s3.send(
      new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "cond/mpu-free", UploadId: upload.UploadId, MultipartUpload: { Parts: upload.parts }, IfNoneMatch: "*" }),
    );
    expect(done.$metadata.httpStatusCode).toBe(200);
    expect((await bytesOf("cond/mpu-free")).equals(upload.bytes)).toBe(true);
  });

  it("CompleteMultipartUpload with If-Match on a key holding nothing is 404 NoSuchKey, as S3 answers, and the upload stays whole", async () => {
    const upload = await openUpload("cond/mpu-missing");
    const complete = (extra: { IfMatch?: string }) =>
      s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "cond/mpu-missing", UploadId: upload.UploadId, MultipartUpload: { Parts: upload.parts }, ...extra }));
    expect(await s3Failure(complete({ IfMatch: '"0123456789abcdef0123456789abcdef"' }))).toEqual({ name: "NoSuchKey", status: 404 });
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "cond/mpu-missing" })))).toMatchObject({ status: 404 });
    await complete({});
    expect((await bytesOf("cond/mpu-missing")).equals(upload.bytes)).toBe(true);
  });

  it("CopyObject's destination If-Match: 412 on another ETag, 404 on a free key, 200 on its ETag", async () => {
    await put("cond/copy-from", "new bytes");
    await put("cond/copy-over", "old bytes");
    const copy = (Key: string, IfMatch: string) => s3.send(new CopyObjectCommand({ Bucket: "easel", Key, CopySource: "easel/cond/copy-from", IfMatch }));
    expect(await s3Failure(copy("cond/copy-over", '"ffffffffffffffffffffffffffffffff"'))).toEqual({ name: "PreconditionFailed", status: 412 });
    expect((await bytesOf("cond/copy-over")).toString()).toBe("old bytes");
    expect(await s3Failure(copy("cond/copy-nowhere", await etagOf("cond/copy-over")))).toEqual({ name: "NoSuchKey", status: 404 });
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "cond/copy-nowhere" })))).toMatchObject({ status: 404 });
    expect((await copy("cond/copy-over", await etagOf("cond/copy-over"))).$metadata.httpStatusCode).toBe(200);
    expect((await bytesOf("cond/copy-over")).toString()).toBe("new bytes");
  });

  it("CopyObject's destination If-None-Match: *: 200 on a free key, 412 once it holds an object", async () => {
    await put("cond/copy-once-from", "copied once");
    const copy = () => s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "cond/copy-once", CopySource: "easel/cond/copy-once-from", IfNoneMatch: "*" }));
    expect((await copy()).$metadata.httpStatusCode).toBe(200);
    await put("cond/copy-once-from", "copied twice");
    expect(await s3Failure(copy())).toEqual({ name: "PreconditionFailed", status: 412 });
    expect((await bytesOf("cond/copy-once")).toString()).toBe("copied once");
  });

  it("CopyObject judges each x-amz-copy-source-if-* on its own: 200 when it holds, 412 when it fails", async () => {
    await put("cond/src", "source bytes");
    for (const [name, holds, fails] of await copySourceCases("cond/src")) {
      const key = `cond/dst-${name}`;
      const copy = (conditions: CopySourceConditions) => s3.send(new CopyObjectCommand({ Bucket: "easel", Key: key, CopySource: "easel/cond/src", ...conditions }));
      expect({ name, failure: await s3Failure(copy(fails)) }).toEqual({ name, failure: { name: "PreconditionFailed", status: 412 } });
      expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: key })))).toMatchObject({ status: 404 });
      expect({ name, status: (await copy(holds)).$metadata.httpStatusCode }).toEqual({ name, status: 200 });
      expect((await bytesOf(key)).toString()).toBe("source bytes");
    }
  });

  it("CopyObject follows S3's documented pairs, and ignores an If-Modified-Since in the future as S3 does", async () => {
    await put("cond/pair-src", "pair bytes");
    const srcEtag = await etagOf("cond/pair-src");
    const copy = (Key: string, extra: CopySourceConditions) => s3.send(new CopyObjectCommand({ Bucket: "easel", Key, CopySource: "easel/cond/pair-src", ...extra }));
    const past = new Date(Date.now() - 3600_000);
    // If-Match true and If-Unmodified-Since false copies; If-None-Match false and If-Modified-Since true is 412.
    expect((await copy("cond/pair-1", { CopySourceIfMatch: srcEtag, CopySourceIfUnmodifiedSince: past })).$metadata.httpStatusCode).toBe(200);
    expect(await s3Failure(copy("cond/pair-2", { CopySourceIfNoneMatch: srcEtag, CopySourceIfModifiedSince: past }))).toEqual({ name: "PreconditionFailed", status: 412 });
    expect((await copy("cond/pair-2", { CopySourceIfModifiedSince: new Date(clock().getTime() + 86_400_000) })).$metadata.httpStatusCode).toBe(200);
    expect((await bytesOf("cond/pair-2")).toString()).toBe("pair bytes");
    // GET ignores it the same way: a client clock running ahead is not told "not modified".
    const got = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "cond/pair-src", IfModifiedSince: new Date(clock().getTime() + 86_400_000) }));
    expect(got.$metadata.httpStatusCode).toBe(200);
  });

  it("a duplicate part number in the completion list is S3's InvalidPartOrder, and the upload still completes", async () => {
    const upload = await openUpload("cond/dup-part");
    const parts = [upload.parts[0], upload.parts[0], upload.parts[1]];
    expect(
      await s3Failure(s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "cond/dup-part", UploadId: upload.UploadId, MultipartUpload: { Parts: parts } }))),
    ).toEqual({ name: "InvalidPartOrder", status: 400 });
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "cond/dup-part", UploadId: upload.UploadId, MultipartUpload: { Parts: upload.parts } }));
    expect((await storedBytes(store.lay, "cond/dup-part")).equals(upload.bytes)).toBe(true);
  });
});

describe("server-side encryption", () => {
  it("is refused with 501 on every request that asks for it, and nothing is stored", async () => {
    const key = Buffer.alloc(32, 7);
    const sseC = { SSECustomerAlgorithm: "AES256", SSECustomerKey: key.toString("base64"), SSECustomerKeyMD5: crypto.createHash("md5").update(key).digest("base64") };
    expect(await s3Failure(put("sse/s3", "secret", { ServerSideEncryption: "AES256" }))).toEqual({ name: "NotImplemented", status: 501 });
    expect(await s3Failure(put("sse/kms", "secret", { ServerSideEncryption: "aws:kms", SSEKMSKeyId: "alias/x" }))).toEqual({ name: "NotImplemented", status: 501 });
    expect(await s3Failure(put("sse/c", "secret", sseC))).toEqual({ name: "NotImplemented", status: 501 });
    expect(await s3Failure(s3.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key: "sse/mpu", ServerSideEncryption: "AES256" })))).toEqual({ name: "NotImplemented", status: 501 });
    for (const k of ["sse/s3", "sse/kms", "sse/c"]) expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: k })))).toMatchObject({ status: 404 });
    await put("sse/plain", "plain");
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: "easel", Key: "sse/plain", ...sseC })))).toEqual({ name: "NotImplemented", status: 501 });
    expect(
      await s3Failure(
        s3.send(
          new CopyObjectCommand({
            Bucket: "easel",
            Key: "sse/copy",
            CopySource: "easel/sse/plain",
            CopySourceSSECustomerAlgorithm: sseC.SSECustomerAlgorithm,
            CopySourceSSECustomerKey: sseC.SSECustomerKey,
            CopySourceSSECustomerKeyMD5: sseC.SSECustomerKeyMD5,
          }),
        ),
      ),
    ).toEqual({ name: "NotImplemented", status: 501 });
    expect(tmpLeftovers(store.lay)).toEqual([]);
  });
});

describe("UploadPartCopy", () => {
  it("builds parts from byte ranges of a stored object", async () => {
    const source = crypto.randomBytes(7 * MiB + 123);
    await put("upc/source", source);
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key: "upc/target" }));
    const first = await s3.send(
      new UploadPartCopyCommand({ Bucket: "easel", Key: "upc/target", UploadId, PartNumber: 1, CopySource: "easel/upc/source", CopySourceRange: `bytes=0-${5 * MiB - 1}` }),
    );
    expect(first.CopyPartResult?.ETag).toBe(`"${md5Hex(source.subarray(0, 5 * MiB))}"`);
    const second = await s3.send(
      new UploadPartCopyCommand({ Bucket: "easel", Key: "upc/target", UploadId, PartNumber: 2, CopySource: "easel/upc/source", CopySourceRange: `bytes=${5 * MiB}-${source.length - 1}` }),
    );
    // A whole-object copy part, then a refused range and a refused condition, none of which change the upload.
    const whole = await s3.send(new UploadPartCopyCommand({ Bucket: "easel", Key: "upc/target", UploadId, PartNumber: 3, CopySource: "easel/upc/source" }));
    expect(whole.CopyPartResult?.ETag).toBe(`"${md5Hex(source)}"`);
    expect(
      await s3Failure(s3.send(new UploadPartCopyCommand({ Bucket: "easel", Key: "upc/target", UploadId, PartNumber: 4, CopySource: "easel/upc/source", CopySourceRange: `bytes=0-${source.length}` }))),
    ).toEqual({ name: "InvalidArgument", status: 400 });
    expect(
      await s3Failure(
        s3.send(new UploadPartCopyCommand({ Bucket: "easel", Key: "upc/target", UploadId, PartNumber: 4, CopySource: "easel/upc/source", CopySourceIfMatch: '"ffffffffffffffffffffffffffffffff"' })),
      ),
    ).toEqual({ name: "PreconditionFailed", status: 412 });
    expect(
      await s3Failure(s3.send(new UploadPartCopyCommand({ Bucket: "easel", Key: "upc/target", UploadId, PartNumber: 4, CopySource: "easel/upc/missing" }))),
    ).toEqual({ name: "NoSuchKey", status: 404 });
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: "easel",
        Key: "upc/target",
        UploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: first.CopyPartResult!.ETag }, { PartNumber: 2, ETag: second.CopyPartResult!.ETag }] },
      }),
    );
    expect(done.ETag).toMatch(/-2"$/);
    expect((await bytesOf("upc/target")).equals(source)).toBe(true);
    expect(tmpLeftovers(store.lay)).toEqual([]);
  });

  it("judges each x-amz-copy-source-if-* on its own: the part is made when it holds, 412 and no part when it fails", async () => {
    const source = crypto.randomBytes(64 * 1024);
    await put("upc/cond-source", source);
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key: "upc/cond-target" }));
    const listedParts = async () => ((await s3.send(new ListPartsCommand({ Bucket: "easel", Key: "upc/cond-target", UploadId }))).Parts ?? []).map((p) => p.PartNumber);
    let partNumber = 0;
    for (const [name, holds, fails] of await copySourceCases("upc/cond-source")) {
      partNumber += 1;
      const copy = (conditions: CopySourceConditions) =>
        s3.send(new UploadPartCopyCommand({ Bucket: "easel", Key: "upc/cond-target", UploadId, PartNumber: partNumber, CopySource: "easel/upc/cond-source", ...conditions }));
      expect({ name, failure: await s3Failure(copy(fails)) }).toEqual({ name, failure: { name: "PreconditionFailed", status: 412 } });
      expect(await listedParts()).not.toContain(partNumber);
      const made = await copy(holds);
      expect({ name, etag: made.CopyPartResult?.ETag }).toEqual({ name, etag: `"${md5Hex(source)}"` });
      expect(await listedParts()).toContain(partNumber);
    }
    expect(tmpLeftovers(store.lay)).toEqual([]);
  });

  it("stays inside one workspace, like CopyObject", async () => {
    await put("ws/aaa/original", "a's bytes");
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key: "ws/bbb/stolen" }));
    expect(
      await s3Failure(s3.send(new UploadPartCopyCommand({ Bucket: "easel", Key: "ws/bbb/stolen", UploadId, PartNumber: 1, CopySource: "easel/ws/aaa/original" }))),
    ).toEqual({ name: "AccessDenied", status: 403 });
  });
});

describe("GET and HEAD ?partNumber=", () => {
  it("answers each part of a multipart object as it was uploaded, with the part count", async () => {
    const upload = await openUpload("parts/object", 4321);
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "parts/object", UploadId: upload.UploadId, MultipartUpload: { Parts: upload.parts } }));
    const one = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "parts/object", PartNumber: 1 }));
    expect(one.$metadata.httpStatusCode).toBe(206);
    expect(one.PartsCount).toBe(2);
    expect(one.ContentRange).toBe(`bytes 0-${5 * MiB - 1}/${5 * MiB + 4321}`);
    expect(Buffer.from(await one.Body!.transformToByteArray()).equals(upload.bytes.subarray(0, 5 * MiB))).toBe(true);
    const two = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "parts/object", PartNumber: 2 }));
    expect(Buffer.from(await two.Body!.transformToByteArray()).equals(upload.bytes.subarray(5 * MiB))).toBe(true);
    const head = await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "parts/object", PartNumber: 2 }));
    expect([head.ContentLength, head.PartsCount]).toEqual([4321, 2]);
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: "easel", Key: "parts/object", PartNumber: 3 })))).toEqual({ name: "InvalidPartNumber", status: 416 });
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: "easel", Key: "parts/object", PartNumber: 1, Range: "bytes=0-1" })))).toEqual({ name: "InvalidRequest", status: 400 });
    // The part count comes only with a part: a whole-object GET or HEAD carries none, as on S3.
    const whole = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "parts/object" }));
    expect([whole.$metadata.httpStatusCode, whole.ETag?.endsWith('-2"'), whole.PartsCount]).toEqual([200, true, undefined]);
    await whole.Body!.transformToByteArray();
    expect((await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "parts/object" }))).PartsCount).toBeUndefined();
  });

  it("answers part 1 of an object uploaded whole with all of it", async () => {
    await put("parts/single", "whole object");
    const one = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "parts/single", PartNumber: 1 }));
    expect(Buffer.from(await one.Body!.transformToByteArray()).toString()).toBe("whole object");
    expect(one.PartsCount).toBeUndefined();
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "parts/single", PartNumber: 2 })))).toMatchObject({ status: 416 });
  });
});

describe("user metadata beyond ASCII", () => {
  const decodeWord = (value: string | undefined) => {
    const encoded = /^=\?UTF-8\?B\?([A-Za-z0-9+/=]+)\?=$/.exec(value ?? "");
    expect(encoded).not.toBeNull();
    return Buffer.from(encoded![1], "base64").toString("utf8");
  };

  it("from the AWS SDK (Node sends Latin-1 text as its bytes) is verified, kept, and returned as an RFC 2047 encoded word", async () => {
    await put("meta/latin1", "x", { Metadata: { title: "Hello Worldé", plain: "ascii only" } });
    const head = await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "meta/latin1" }));
    expect(head.Metadata?.plain).toBe("ascii only");
    expect(decodeWord(head.Metadata?.title)).toBe("Hello Worldé");
  });

  it("sent as UTF-8 bytes and signed as that text is verified and kept as the text", async () => {
    const title = "Café — 日本語";
    const url = new URL(`${store.endpoint}/easel/meta/utf8`);
    const signer = new SignatureV4({ credentials, region: "us-east-1", service: "s3", sha256: NodeSha256 as never, uriEscapePath: false });
    const signed = await signer.sign(
      {
        method: "PUT",
        protocol: "http:",
        hostname: url.hostname,
        port: Number(url.port),
        path: url.pathname,
        query: {},
        headers: { host: url.host, "x-amz-content-sha256": "UNSIGNED-PAYLOAD", "x-amz-meta-title": title, "content-length": "1" },
      },
      { signingDate: clock() },
    );
    // On the wire the header is the text's UTF-8 bytes (Node writes a header string one byte per character).
    const headers = { ...signed.headers, "x-amz-meta-title": Buffer.from(title, "utf8").toString("latin1") };
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(url, { method: "PUT", headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      // A Buffer, so the header block is written on its own as Latin-1 (a string body would carry it as UTF-8).
      req.end(Buffer.from("x"));
    });
    expect(status).toBe(200);
    const head = await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "meta/utf8" }));
    expect(decodeWord(head.Metadata?.title)).toBe(title);
  });
});

describe("an endpoint with a path, signed as s3cmd signs it", () => {
  it("accepts the mount signed as part of the host and the path below it, and nothing else", async () => {
    const url = new URL(`${store.endpoint}/easel/s3cmd/object.txt`);
    const mount = url.pathname.slice(0, url.pathname.indexOf("/easel/"));
    const signer = new SignatureV4({ credentials, region: "us-east-1", service: "s3", sha256: NodeSha256 as never, uriEscapePath: false });
    const sign = (path: string, host: string) =>
      signer.sign(
        { method: "PUT", protocol: "http:", hostname: url.hostname, port: Number(url.port), path, query: {}, headers: { host, "x-amz-content-sha256": "UNSIGNED-PAYLOAD", "content-length": "5" } },
        { signingDate: clock() },
      );
    const send = async (headers: Record<string, string>) => (await fetch(url, { method: "PUT", body: "hello", headers: { ...headers, host: url.host } })).status;
    const asS3cmd = await sign("/easel/s3cmd/object.txt", `${url.host}${mount}`);
    expect(await send(asS3cmd.headers)).toBe(200);
    expect((await bytesOf("s3cmd/object.txt")).toString()).toBe("hello");
    // The same form naming another key, or another mount, is refused.
    const otherKey = await sign("/easel/s3cmd/other.txt", `${url.host}${mount}`);
    expect(await send(otherKey.headers)).toBe(403);
    const otherMount = await sign("/easel/s3cmd/object.txt", `${url.host}/elsewhere`);
    expect(await send(otherMount.headers)).toBe(403);
  });
});

class NodeSha256 {
  private h: crypto.Hash | crypto.Hmac;
  constructor(secret?: string | Uint8Array) {
    this.h = secret ? crypto.createHmac("sha256", secret) : crypto.createHash("sha256");
  }
  update(data: string | Uint8Array) {
    this.h.update(data);
  }
  async digest() {
    return new Uint8Array(this.h.digest());
  }
  reset() {}
}
