import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  ListPartsCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type ChecksumAlgorithm,
  type CompletedPart,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checksumOf, type ChecksumAlgorithm as Algorithm } from "../disk/checksum-algorithms";
import { headObject } from "../disk/objects";
import { md5Hex, movableClock, startS3Store, storedBytes, tempDir, tmpLeftovers, type StoreServer } from "../testing/fixtures";

// x-amz-checksum-* on single PUTs, CopyObject and GET, driven by the real AWS SDK at its defaults:
// a Buffer body sends its checksum as a header, a stream body as an aws-chunked trailer
// (STREAMING-UNSIGNED-PAYLOAD-TRAILER), and GetObject asks for the checksum and validates it.
const credentials = { accessKeyId: "EASELTESTKEY", secretAccessKey: "test-secret-key" };
const clock = movableClock();
let store: StoreServer;
let s3: S3Client;
const sent: Record<string, string>[] = [];

const ALGORITHMS: ChecksumAlgorithm[] = ["CRC32", "CRC32C", "SHA1", "SHA256", "CRC64NVME"];
const lower = (a: ChecksumAlgorithm) => a.toLowerCase() as Algorithm;
const expectedSum = async (a: ChecksumAlgorithm, bytes: Uint8Array) => (await checksumOf(lower(a), bytes)).toString("base64");
const field = (a: ChecksumAlgorithm) => `Checksum${a}` as "ChecksumCRC32";

async function s3Failure(p: Promise<unknown>): Promise<{ name: string; status: number | undefined; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
    return { name: e.name, status: e.$metadata?.httpStatusCode, message: e.message };
  }
  throw new Error("expected the call to fail");
}

async function readAll(body: unknown): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  store = await startS3Store({ root: tempDir("s3-checksums"), credentials: async () => credentials, clock });
  // The SDK at its defaults: checksums on every upload, validation of every GET that returns one.
  s3 = new S3Client({ endpoint: store.endpoint, region: "us-east-1", forcePathStyle: true, credentials, maxAttempts: 1 });
  // What the SDK actually sent: proves which bodies went aws-chunked.
  s3.middlewareStack.add(
    (next) => async (args) => {
      sent.push({ ...(args.request as { headers: Record<string, string> }).headers });
      return next(args);
    },
    { step: "finalizeRequest", name: "recordSentHeaders" },
  );
  await s3.send(new CreateBucketCommand({ Bucket: "easel" }));
});

afterAll(async () => {
  s3?.destroy();
  await store?.close();
});

describe("PutObject with a checksum (SDK defaults)", () => {
  it("verifies, keeps and echoes the default CRC32 of a Buffer body, and GetObject validates it", async () => {
    const bytes = crypto.randomBytes(100_000);
    const put = await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "sums/default", Body: bytes }));
    expect(put.ChecksumCRC32).toBe(await expectedSum("CRC32", bytes));
    expect(put.ChecksumType).toBe("FULL_OBJECT");
    const record = await headObject(store.lay, "easel", "sums/default");
    expect(record?.checksum).toEqual({ algorithm: "crc32", value: put.ChecksumCRC32, type: "FULL_OBJECT" });
    const got = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "sums/default" }));
    expect(got.ChecksumCRC32).toBe(put.ChecksumCRC32);
    expect(got.ChecksumType).toBe("FULL_OBJECT");
    expect(md5Hex(await readAll(got.Body))).toBe(md5Hex(bytes));
  });

  for (const algorithm of ALGORITHMS) {
    it(`${algorithm}: a Buffer body (header) and a stream body (aws-chunked trailer) are verified and kept`, async () => {
      const bytes = crypto.randomBytes(300_000);
      const sum = await expectedSum(algorithm, bytes);
      const asHeader = await s3.send(new PutObjectCommand({ Bucket: "easel", Key: `sums/${algorithm}/buffer`, Body: bytes, ChecksumAlgorithm: algorithm }));
      expect(asHeader[field(algorithm)]).toBe(sum);
      const asTrailer = await s3.send(
        new PutObjectCommand({ Bucket: "easel", Key: `sums/${algorithm}/stream`, Body: Readable.from([bytes.subarray(0, 70_000), bytes.subarray(70_000)]), ContentLength: bytes.length, ChecksumAlgorithm: algorithm }),
      );
      expect(asTrailer[field(algorithm)]).toBe(sum);
      expect(sent.at(-1)).toMatchObject({
        "content-encoding": "aws-chunked",
        "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
        "x-amz-trailer": `x-amz-checksum-${lower(algorithm)}`,
      });
      for (const key of [`sums/${algorithm}/buffer`, `sums/${algorithm}/stream`]) {
        expect(md5Hex(await storedBytes(store.lay, key))).toBe(md5Hex(bytes));
        const head = await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: key, ChecksumMode: "ENABLED" }));
        expect(head[field(algorithm)]).toBe(sum);
        const got = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: key }));
        expect(got[field(algorithm)]).toBe(sum);
        expect(md5Hex(await readAll(got.Body))).toBe(md5Hex(bytes));
      }
    });
  }

  it("keeps what the object's Content-Encoding said besides aws-chunked", async () => {
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "sums/gzip", Body: Readable.from([Buffer.from("zz")]), ContentLength: 2, ContentEncoding: "gzip" }));
    const head = await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "sums/gzip" }));
    expect(head.ContentEncoding).toBe("gzip");
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "sums/plain", Body: Readable.from([Buffer.from("zz")]), ContentLength: 2 }));
    expect((await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "sums/plain" }))).ContentEncoding).toBeUndefined();
  });

  it("answers a range without the checksum (it covers the whole object only)", async () => {
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "sums/range", Body: Buffer.from("0123456789") }));
    const got = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "sums/range", Range: "bytes=2-4" }));
    expect(got.ChecksumCRC32).toBeUndefined();
    expect((await readAll(got.Body)).toString()).toBe("234");
  });

  it("GetObject at its defaults notices bytes changed on disk at the same size", async () => {
    const bytes = crypto.randomBytes(50_000);
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "sums/tampered", Body: bytes }));
    const record = await headObject(store.lay, "easel", "sums/tampered");
    const file = path.join(store.lay.objectDir("easel", "sums/tampered"), record!.segments[0].file);
    const changed = Buffer.from(bytes);
    changed[1234] ^= 0xff;
    fs.writeFileSync(file, changed);
    const got = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "sums/tampered" }));
    await expect(readAll(got.Body)).rejects.toThrow(/Checksum mismatch/);
  });
});

describe("refused checksums store nothing", () => {
  it("a wrong header value answers 400 BadDigest", async () => {
    const bytes = crypto.randomBytes(20_000);
    const wrong = await expectedSum("CRC32", Buffer.from("other bytes"));
    const failure = await s3Failure(s3.send(new PutObjectCommand({ Bucket: "easel", Key: "sums/bad-header", Body: bytes, ChecksumCRC32: wrong })));
    expect(failure).toMatchObject({ name: "BadDigest", status: 400, message: "The CRC32 you specified did not match the calculated checksum." });
    expect(await headObject(store.lay, "easel", "sums/bad-header")).toBeNull();
    expect(tmpLeftovers(store.lay)).toEqual([]);
  });

  it("a value that is not a digest, or two checksums, answer 400 InvalidRequest", async () => {
    const notADigest = await s3Failure(s3.send(new PutObjectCommand({ Bucket: "easel", Key: "sums/invalid", Body: Buffer.from("x"), ChecksumSHA256: "AAAA" })));
    expect(notADigest).toMatchObject({ name: "InvalidRequest", status: 400 });
    const both = await s3Failure(
      s3.send(new PutObjectCommand({ Bucket: "easel", Key: "sums/invalid", Body: Buffer.from("x"), ChecksumCRC32: await expectedSum("CRC32", Buffer.from("x")), ChecksumSHA1: await expectedSum("SHA1", Buffer.from("x")) })),
    );
    expect(both).toMatchObject({ name: "InvalidRequest", status: 400 });
    expect(await headObject(store.lay, "easel", "sums/invalid")).toBeNull();
    expect(tmpLeftovers(store.lay)).toEqual([]);
  });
});

describe("DeleteObjects (the SDK sends the document's CRC32)", () => {
  it("checks the document's checksum: a wrong one answers 400 BadDigest and deletes nothing", async () => {
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "sums/delete-me", Body: Buffer.from("x") }));
    const tampering = new S3Client({ endpoint: store.endpoint, region: "us-east-1", forcePathStyle: true, credentials, maxAttempts: 1 });
    tampering.middlewareStack.add(
      (next) => async (args) => {
        const headers = (args.request as { headers: Record<string, string> }).headers;
        expect(headers["x-amz-checksum-crc32"]).toBeDefined();
        headers["x-amz-checksum-crc32"] = "AAAAAA==";
        return next(args);
      },
      { step: "build", priority: "low", name: "wrongDocumentChecksum" },
    );
    const request = { Bucket: "easel", Delete: { Objects: [{ Key: "sums/delete-me" }] } };
    expect(await s3Failure(tampering.send(new DeleteObjectsCommand(request)))).toMatchObject({ name: "BadDigest", status: 400 });
    tampering.destroy();
    expect(await headObject(store.lay, "easel", "sums/delete-me")).not.toBeNull();
    await s3.send(new DeleteObjectsCommand(request));
    expect(await headObject(store.lay, "easel", "sums/delete-me")).toBeNull();
  });
});

describe("CopyObject", () => {
  it("keeps the source's checksum, or computes the one x-amz-checksum-algorithm asks for", async () => {
    const bytes = crypto.randomBytes(40_000);
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "sums/copy-source", Body: bytes, ChecksumAlgorithm: "SHA1" }));
    const kept = await s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "sums/copy-kept", CopySource: "easel/sums/copy-source" }));
    expect(kept.CopyObjectResult?.ChecksumSHA1).toBe(await expectedSum("SHA1", bytes));
    const asked = await s3.send(new CopyObjectCommand({ Bucket: "easel", Key: "sums/copy-crc", CopySource: "easel/sums/copy-source", ChecksumAlgorithm: "CRC32C" }));
    expect(asked.CopyObjectResult?.ChecksumCRC32C).toBe(await expectedSum("CRC32C", bytes));
    const got = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "sums/copy-crc" }));
    expect(got.ChecksumCRC32C).toBe(await expectedSum("CRC32C", bytes));
    expect(md5Hex(await readAll(got.Body))).toBe(md5Hex(bytes));
  });
});

describe("multipart uploads with a checksum", () => {
  const MiB = 1024 * 1024;
  const partsOf = () => [crypto.randomBytes(5 * MiB), crypto.randomBytes(MiB + 123)];
  const raw = async (a: ChecksumAlgorithm, bytes: Uint8Array) => checksumOf(lower(a), bytes);

  async function upload(key: string, algorithm: ChecksumAlgorithm, type: "COMPOSITE" | "FULL_OBJECT" | undefined, parts: Buffer[], asStream = false) {
    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key: key, ChecksumAlgorithm: algorithm, ChecksumType: type }));
    const uploaded = [];
    for (const [i, bytes] of parts.entries()) {
      const Body = asStream ? Readable.from([bytes]) : bytes;
      const out = await s3.send(new UploadPartCommand({ Bucket: "easel", Key: key, UploadId: created.UploadId, PartNumber: i + 1, Body, ContentLength: bytes.length, ChecksumAlgorithm: algorithm }));
      expect(out[field(algorithm)]).toBe(await expectedSum(algorithm, bytes));
      uploaded.push({ PartNumber: i + 1, ETag: out.ETag, [field(algorithm)]: out[field(algorithm)] });
    }
    return { created, uploaded };
  }

  it("CRC32 COMPOSITE (S3's default type for CRC32): parts verified and listed, the object's checksum is the checksum of theirs, -N", async () => {
    const parts = partsOf();
    const { created, uploaded } = await upload("mp/crc32-composite", "CRC32", undefined, parts);
    expect(created).toMatchObject({ ChecksumAlgorithm: "CRC32", ChecksumType: "COMPOSITE" });
    const listed = await s3.send(new ListPartsCommand({ Bucket: "easel", Key: "mp/crc32-composite", UploadId: created.UploadId }));
    expect(listed.Parts?.map((p) => p.ChecksumCRC32)).toEqual(uploaded.map((p) => p.ChecksumCRC32));
    expect(listed).toMatchObject({ ChecksumAlgorithm: "CRC32", ChecksumType: "COMPOSITE" });
    const done = await s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "mp/crc32-composite", UploadId: created.UploadId, MultipartUpload: { Parts: uploaded } }));
    const composite = `${(await raw("CRC32", Buffer.concat(await Promise.all(parts.map((p) => raw("CRC32", p)))))).toString("base64")}-2`;
    expect(done).toMatchObject({ ChecksumCRC32: composite, ChecksumType: "COMPOSITE" });
    const head = await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "mp/crc32-composite", ChecksumMode: "ENABLED" }));
    expect(head).toMatchObject({ ChecksumCRC32: composite, ChecksumType: "COMPOSITE" });
    // The SDK does not validate a composite value ("-N"): the bytes arrive whole.
    const got = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "mp/crc32-composite" }));
    expect(md5Hex(await readAll(got.Body))).toBe(md5Hex(Buffer.concat(parts)));
  });

  it("CRC32 FULL_OBJECT: the object's CRC covers its bytes (computed with its md5), a completion's header is checked, GetObject validates", async () => {
    const parts = partsOf();
    const whole = Buffer.concat(parts);
    const { created, uploaded } = await upload("mp/crc32-full", "CRC32", "FULL_OBJECT", parts, true);
    expect(created).toMatchObject({ ChecksumAlgorithm: "CRC32", ChecksumType: "FULL_OBJECT" });
    const complete = (ChecksumCRC32?: string) =>
      s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "mp/crc32-full", UploadId: created.UploadId, MultipartUpload: { Parts: uploaded }, ChecksumCRC32, ChecksumType: "FULL_OBJECT" }));
    const wrong = await s3Failure(complete(await expectedSum("CRC32", Buffer.from("other"))));
    expect(wrong).toMatchObject({ name: "BadDigest", status: 400 });
    expect(await headObject(store.lay, "easel", "mp/crc32-full")).toBeNull();
    const done = await complete(await expectedSum("CRC32", whole));
    expect(done).toMatchObject({ ChecksumCRC32: await expectedSum("CRC32", whole), ChecksumType: "FULL_OBJECT" });
    const got = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "mp/crc32-full" }));
    expect(got).toMatchObject({ ChecksumCRC32: await expectedSum("CRC32", whole), ChecksumType: "FULL_OBJECT" });
    expect(md5Hex(await readAll(got.Body))).toBe(md5Hex(whole));
  });

  it("CRC64NVME defaults to FULL_OBJECT; SHA256 is COMPOSITE, with parts sent as aws-chunked trailers", async () => {
    const parts = partsOf();
    const nvme = await upload("mp/crc64", "CRC64NVME", undefined, parts);
    expect(nvme.created.ChecksumType).toBe("FULL_OBJECT");
    const nvmeDone = await s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "mp/crc64", UploadId: nvme.created.UploadId, MultipartUpload: { Parts: nvme.uploaded } }));
    expect(nvmeDone.ChecksumCRC64NVME).toBe(await expectedSum("CRC64NVME", Buffer.concat(parts)));
    const sha = await upload("mp/sha256", "SHA256", "COMPOSITE", parts, true);
    const shaDone = await s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "mp/sha256", UploadId: sha.created.UploadId, MultipartUpload: { Parts: sha.uploaded } }));
    const composite = `${(await raw("SHA256", Buffer.concat(await Promise.all(parts.map((p) => raw("SHA256", p)))))).toString("base64")}-2`;
    expect(shaDone).toMatchObject({ ChecksumSHA256: composite, ChecksumType: "COMPOSITE" });
    expect(md5Hex(await storedBytes(store.lay, "mp/sha256"))).toBe(md5Hex(Buffer.concat(parts)));
  });

  it("CRC32C COMPOSITE (Buffer parts, as headers) and FULL_OBJECT (stream parts, as aws-chunked trailers)", async () => {
    const parts = partsOf();
    const whole = Buffer.concat(parts);
    const composite = await upload("mp/crc32c-composite", "CRC32C", undefined, parts);
    expect(composite.created).toMatchObject({ ChecksumAlgorithm: "CRC32C", ChecksumType: "COMPOSITE" });
    expect(sent.at(-1)).toMatchObject({ "x-amz-checksum-crc32c": await expectedSum("CRC32C", parts[1]) });
    const compositeDone = await s3.send(
      new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "mp/crc32c-composite", UploadId: composite.created.UploadId, MultipartUpload: { Parts: composite.uploaded } }),
    );
    const expected = `${(await raw("CRC32C", Buffer.concat(await Promise.all(parts.map((p) => raw("CRC32C", p)))))).toString("base64")}-2`;
    expect(compositeDone).toMatchObject({ ChecksumCRC32C: expected, ChecksumType: "COMPOSITE" });
    expect(await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "mp/crc32c-composite", ChecksumMode: "ENABLED" }))).toMatchObject({ ChecksumCRC32C: expected, ChecksumType: "COMPOSITE" });
    expect(md5Hex(await storedBytes(store.lay, "mp/crc32c-composite"))).toBe(md5Hex(whole));

    const full = await upload("mp/crc32c-full", "CRC32C", "FULL_OBJECT", parts, true);
    expect(sent.at(-1)).toMatchObject({ "x-amz-trailer": "x-amz-checksum-crc32c", "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER" });
    const fullDone = await s3.send(
      new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "mp/crc32c-full", UploadId: full.created.UploadId, MultipartUpload: { Parts: full.uploaded }, ChecksumType: "FULL_OBJECT" }),
    );
    expect(fullDone).toMatchObject({ ChecksumCRC32C: await expectedSum("CRC32C", whole), ChecksumType: "FULL_OBJECT" });
    // GetObject at its defaults validates a full-object CRC32C against the bytes it reads.
    const got = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "mp/crc32c-full" }));
    expect(got).toMatchObject({ ChecksumCRC32C: await expectedSum("CRC32C", whole), ChecksumType: "FULL_OBJECT" });
    expect(md5Hex(await readAll(got.Body))).toBe(md5Hex(whole));
  });

  describe("UploadPartCopy into an upload with a checksum algorithm", () => {
    const source = crypto.randomBytes(7 * MiB + 321);
    const firstRange = source.subarray(0, 5 * MiB);
    const tail = crypto.randomBytes(MiB + 7);

    beforeAll(async () => {
      await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "mp/copy-source", Body: source }));
    });

    /** Part 1 copied from a range of the source, part 2 uploaded: the parts as Complete names them. */
    async function copiedThenUploaded(key: string, algorithm: ChecksumAlgorithm, type?: "COMPOSITE" | "FULL_OBJECT") {
      const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key: key, ChecksumAlgorithm: algorithm, ChecksumType: type }));
      const copied = await s3.send(new UploadPartCopyCommand({ Bucket: "easel", Key: key, UploadId, PartNumber: 1, CopySource: "easel/mp/copy-source", CopySourceRange: `bytes=0-${5 * MiB - 1}` }));
      expect(copied.CopyPartResult?.ETag).toBe(`"${md5Hex(firstRange)}"`);
      expect(copied.CopyPartResult?.[field(algorithm)]).toBe(await expectedSum(algorithm, firstRange));
      const uploaded = await s3.send(new UploadPartCommand({ Bucket: "easel", Key: key, UploadId, PartNumber: 2, Body: tail, ChecksumAlgorithm: algorithm }));
      const listed = await s3.send(new ListPartsCommand({ Bucket: "easel", Key: key, UploadId }));
      expect(listed.Parts?.map((p) => p[field(algorithm)])).toEqual([copied.CopyPartResult?.[field(algorithm)], uploaded[field(algorithm)]]);
      const parts: CompletedPart[] = [
        { PartNumber: 1, ETag: copied.CopyPartResult?.ETag, [field(algorithm)]: copied.CopyPartResult?.[field(algorithm)] },
        { PartNumber: 2, ETag: uploaded.ETag, [field(algorithm)]: uploaded[field(algorithm)] },
      ];
      return { UploadId, parts };
    }

    it("COMPOSITE: the copied part's checksum is computed and answered, and the object keeps its -N checksum on Complete, HEAD and GET", async () => {
      const { UploadId, parts } = await copiedThenUploaded("mp/copied-composite", "CRC32C");
      const done = await s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "mp/copied-composite", UploadId, MultipartUpload: { Parts: parts } }));
      const expected = `${(await raw("CRC32C", Buffer.concat([await raw("CRC32C", firstRange), await raw("CRC32C", tail)]))).toString("base64")}-2`;
      expect(done).toMatchObject({ ChecksumCRC32C: expected, ChecksumType: "COMPOSITE" });
      expect(await s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "mp/copied-composite", ChecksumMode: "ENABLED" }))).toMatchObject({ ChecksumCRC32C: expected, ChecksumType: "COMPOSITE" });
      const got = await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "mp/copied-composite", ChecksumMode: "ENABLED" }));
      expect(got).toMatchObject({ ChecksumCRC32C: expected, ChecksumType: "COMPOSITE" });
      expect(md5Hex(await readAll(got.Body))).toBe(md5Hex(Buffer.concat([firstRange, tail])));
    });

    it("a completion naming the copied part with another checksum is refused (400 InvalidPart)", async () => {
      const { UploadId, parts } = await copiedThenUploaded("mp/copied-wrong", "SHA256");
      parts[0] = { ...parts[0], ChecksumSHA256: await expectedSum("SHA256", Buffer.from("other")) };
      expect(await s3Failure(s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "mp/copied-wrong", UploadId, MultipartUpload: { Parts: parts } })))).toMatchObject({
        name: "InvalidPart",
        status: 400,
      });
      expect(await headObject(store.lay, "easel", "mp/copied-wrong")).toBeNull();
      await s3.send(new AbortMultipartUploadCommand({ Bucket: "easel", Key: "mp/copied-wrong", UploadId }));
    });

    it("FULL_OBJECT: the object's CRC covers the copied bytes too", async () => {
      const { UploadId, parts } = await copiedThenUploaded("mp/copied-full", "CRC64NVME");
      const done = await s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "mp/copied-full", UploadId, MultipartUpload: { Parts: parts } }));
      expect(done).toMatchObject({ ChecksumCRC64NVME: await expectedSum("CRC64NVME", Buffer.concat([firstRange, tail])), ChecksumType: "FULL_OBJECT" });
    });
  });

  it("refuses algorithm and type combinations S3 does not make", async () => {
    for (const [ChecksumAlgorithm, ChecksumType] of [
      ["SHA256", "FULL_OBJECT"],
      ["SHA1", "FULL_OBJECT"],
      ["CRC64NVME", "COMPOSITE"],
    ] as const) {
      expect(await s3Failure(s3.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key: "mp/refused", ChecksumAlgorithm, ChecksumType })))).toMatchObject({ name: "InvalidRequest", status: 400 });
    }
  });

  it("a part with a wrong checksum, or of another algorithm, is refused and not kept", async () => {
    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key: "mp/bad-part", ChecksumAlgorithm: "CRC32" }));
    const part = { Bucket: "easel", Key: "mp/bad-part", UploadId: created.UploadId, PartNumber: 1 };
    const bytes = crypto.randomBytes(1000);
    const wrong = await expectedSum("CRC32", Buffer.from("else"));
    expect(await s3Failure(s3.send(new UploadPartCommand({ ...part, Body: bytes, ChecksumCRC32: wrong })))).toMatchObject({ name: "BadDigest", status: 400 });
    expect(await s3Failure(s3.send(new UploadPartCommand({ ...part, Body: bytes, ChecksumAlgorithm: "SHA1" })))).toMatchObject({ name: "InvalidRequest", status: 400 });
    // (A part whose trailer is wrong: aws-chunked.test.ts, which builds the body by hand.)
    const listed = await s3.send(new ListPartsCommand({ Bucket: "easel", Key: "mp/bad-part", UploadId: created.UploadId }));
    expect(listed.Parts ?? []).toEqual([]);
    expect(tmpLeftovers(store.lay)).toEqual([]);
    await s3.send(new AbortMultipartUploadCommand({ Bucket: "easel", Key: "mp/bad-part", UploadId: created.UploadId }));
  });

  it("a completion naming a part with another checksum answers 400 InvalidPart and creates nothing", async () => {
    const parts = partsOf();
    const { created, uploaded } = await upload("mp/bad-complete", "CRC32", "COMPOSITE", parts);
    uploaded[1] = { ...uploaded[1], ChecksumCRC32: await expectedSum("CRC32", Buffer.from("other")) };
    const failure = await s3Failure(s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "mp/bad-complete", UploadId: created.UploadId, MultipartUpload: { Parts: uploaded } })));
    expect(failure).toMatchObject({ name: "InvalidPart", status: 400 });
    expect(await headObject(store.lay, "easel", "mp/bad-complete")).toBeNull();
    await s3.send(new AbortMultipartUploadCommand({ Bucket: "easel", Key: "mp/bad-complete", UploadId: created.UploadId }));
  });
});
