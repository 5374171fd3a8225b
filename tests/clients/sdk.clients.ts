import crypto from "node:crypto";
import { Readable } from "node:stream";
import zlib from "node:zlib";
import { Crc32c } from "@aws-sdk/checksums/crc";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  type ChecksumAlgorithm,
  type CompletedPart,
} from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { bucketName, MiB } from "./clients";

/**
 * The AWS SDK v3 at its defaults (no requestChecksumCalculation or responseChecksumValidation
 * set) against the embedded store of a build, over HTTP: it computes a CRC32 for every PutObject
 * and UploadPart it sends, as a header for a Buffer and as the trailer of an aws-chunked body for a
 * stream, and verifies the checksum a GET returns when asked to (ChecksumMode ENABLED). Debian's
 * aws-cli and rclone predate these defaults, so only this file sends the store what current SDKs
 * send. Every expected checksum is computed here, apart from the store: CRC32 with node:zlib,
 * SHA256 with node:crypto, CRC32C with the SDK's own library (Node has none).
 */
const { credentials } = inject("clientsStore");
const bucket = bucketName("sdk");
let s3: S3Client;
/** The headers of the last request the SDK sent, as it put them on the wire (after its checksum step). */
let sent: Record<string, string> = {};

type Algorithm = "CRC32" | "CRC32C" | "SHA256";

async function digest(algorithm: Algorithm, bytes: Uint8Array): Promise<Buffer> {
  if (algorithm === "SHA256") return crypto.createHash("sha256").update(bytes).digest();
  if (algorithm === "CRC32C") {
    const crc = new Crc32c();
    crc.update(bytes);
    return Buffer.from(await crc.digest());
  }
  const raw = Buffer.alloc(4);
  raw.writeUInt32BE(zlib.crc32(bytes));
  return raw;
}

const base64 = async (algorithm: Algorithm, bytes: Uint8Array) => (await digest(algorithm, bytes)).toString("base64");

/** S3's checksum of a multipart object (COMPOSITE): the checksum of its parts' raw checksums, then "-<parts>". */
async function composite(algorithm: Algorithm, parts: Uint8Array[]): Promise<string> {
  const digests = await Promise.all(parts.map((p) => digest(algorithm, p)));
  return `${await base64(algorithm, Buffer.concat(digests))}-${parts.length}`;
}

/** The response field that carries an algorithm's value (ChecksumCRC32…). */
const field = (algorithm: Algorithm) => `Checksum${algorithm}` as "ChecksumCRC32" | "ChecksumCRC32C" | "ChecksumSHA256";

const md5 = (bytes: Uint8Array) => crypto.createHash("md5").update(bytes).digest("hex");

/** Incompressible bytes, the same on every run. */
function bytesOf(size: number, seed: string): Buffer {
  const key = crypto.createHash("sha256").update(seed).digest();
  return crypto.createCipheriv("aes-256-ctr", key, Buffer.alloc(16)).update(Buffer.alloc(size));
}

/** A Node stream the SDK cannot measure (no path, no length): it sends such a body aws-chunked. */
function streamOf(bytes: Buffer, piece = 256 * 1024): Readable {
  return Readable.from(
    (function* () {
      for (let at = 0; at < bytes.length; at += piece) yield bytes.subarray(at, at + piece);
    })(),
  );
}

/** The error an SDK call failed with: its S3 code and HTTP status. */
async function refusal(call: Promise<unknown>): Promise<{ code: string; status: number | undefined }> {
  try {
    await call;
  } catch (err) {
    if (!(err instanceof S3ServiceException)) throw err;
    return { code: err.name, status: err.$metadata.httpStatusCode };
  }
  throw new Error("the store accepted a request it should have refused");
}

async function readBack(key: string, opts: { checksum?: boolean } = {}) {
  const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: opts.checksum ? "ENABLED" : undefined }));
  // With ChecksumMode ENABLED the SDK checks a FULL_OBJECT checksum as the body ends, and fails the read on a mismatch.
  return { got, bytes: Buffer.from(await got.Body!.transformToByteArray()) };
}

beforeAll(async () => {
  s3 = new S3Client({
    endpoint: credentials.endpoint,
    region: credentials.region,
    forcePathStyle: true,
    credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
  });
  s3.middlewareStack.add(
    (next) => async (args) => {
      sent = { ...((args.request as { headers?: Record<string, string> }).headers ?? {}) };
      return next(args);
    },
    { step: "finalizeRequest", name: "recordSentHeaders" },
  );
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
});

afterAll(() => {
  s3?.destroy();
});

describe("the AWS SDK v3 at its default checksum settings, against the built server", () => {
  it("PutObject from a Buffer: the SDK's CRC32 header is verified, echoed, stored and checked again on GET", async () => {
    const body = bytesOf(3 * MiB + 17, "sdk buffer");
    const crc32 = await base64("CRC32", body);
    const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: "buffer.bin", Body: body }));
    expect(sent["x-amz-checksum-crc32"]).toBe(crc32);
    expect(sent["content-encoding"]).toBeUndefined();
    expect(put.ChecksumCRC32).toBe(crc32);
    expect(put.ETag).toBe(`"${md5(body)}"`);

    const { got, bytes } = await readBack("buffer.bin", { checksum: true });
    expect(md5(bytes)).toBe(md5(body));
    expect(got.ChecksumCRC32).toBe(crc32);
    expect(got.ChecksumType).toBe("FULL_OBJECT");
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: "buffer.bin", ChecksumMode: "ENABLED" }));
    expect(head.ChecksumCRC32).toBe(crc32);
    expect(head.ContentLength).toBe(body.length);
  });

  it.each<[Algorithm, ChecksumAlgorithm | undefined]>([
    ["CRC32", undefined],
    ["CRC32C", "CRC32C"],
    ["SHA256", "SHA256"],
  ])("PutObject from a Node stream: an aws-chunked body with a %s trailer (algorithm named: %s) is decoded, verified and read back", async (algorithm, named) => {
    const body = bytesOf(2 * MiB + 5, `sdk stream ${algorithm}`);
    const key = `stream-${algorithm}.bin`;
    const put = await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: streamOf(body), ContentLength: body.length, ChecksumAlgorithm: named }));
    expect(sent).toMatchObject({
      "content-encoding": "aws-chunked",
      "x-amz-content-sha256": "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
      "x-amz-trailer": `x-amz-checksum-${algorithm.toLowerCase()}`,
      "x-amz-decoded-content-length": String(body.length),
    });
    expect(put[field(algorithm)]).toBe(await base64(algorithm, body));
    expect(put.ETag).toBe(`"${md5(body)}"`);

    const { got, bytes } = await readBack(key, { checksum: true });
    expect(bytes.length).toBe(body.length);
    expect(md5(bytes)).toBe(md5(body));
    expect(got[field(algorithm)]).toBe(await base64(algorithm, body));
    // aws-chunked was how the bytes travelled, not what they are: the object does not keep it.
    expect(got.ContentEncoding).toBeUndefined();
  });

  it.each<[string, ChecksumAlgorithm | undefined, Algorithm]>([
    ["CRC32", "CRC32", "CRC32"],
    ["CRC32C", "CRC32C", "CRC32C"],
    ["SHA256", "SHA256", "SHA256"],
    ["no algorithm named (the SDK's default)", undefined, "CRC32"],
  ])("multipart upload with %s: parts verified (one Buffer, one aws-chunked stream), Complete, GET and HEAD with checksum mode", async (label, named, algorithm) => {
    const key = `multipart-${label.split(" ")[0]}.bin`;
    const parts = [bytesOf(5 * MiB, `${key} part 1`), bytesOf(MiB + 3, `${key} part 2`)];
    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ChecksumAlgorithm: named }));
    const uploadId = created.UploadId!;
    const completed: CompletedPart[] = [];
    for (const [i, part] of parts.entries()) {
      const PartNumber = i + 1;
      const Body = i === 0 ? part : streamOf(part);
      const uploaded = await s3.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: uploadId, PartNumber, Body, ContentLength: part.length, ChecksumAlgorithm: named }));
      expect(sent["content-encoding"]).toBe(i === 0 ? undefined : "aws-chunked");
      expect(uploaded[field(algorithm)]).toBe(await base64(algorithm, part));
      expect(uploaded.ETag).toBe(`"${md5(part)}"`);
      completed.push({ PartNumber, ETag: uploaded.ETag, [field(algorithm)]: uploaded[field(algorithm)] });
    }
    const done = await s3.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: completed } }));
    expect(done.ETag).toMatch(/-2"$/);

    const whole = Buffer.concat(parts);
    const { got, bytes } = await readBack(key, { checksum: true });
    expect(md5(bytes)).toBe(md5(whole));
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: "ENABLED" }));
    expect(head.ContentLength).toBe(whole.length);
    expect(head.ETag).toBe(done.ETag);
    if (named) {
      // An upload created with an algorithm keeps the composite of its parts' checksums, as S3 does.
      expect(done[field(algorithm)]).toBe(await composite(algorithm, parts));
      expect(head[field(algorithm)]).toBe(await composite(algorithm, parts));
      expect(head.ChecksumType).toBe("COMPOSITE");
      expect(got[field(algorithm)]).toBe(await composite(algorithm, parts));
    }
  });

  it("PutObject with a wrong checksum is refused with 400 BadDigest and stores nothing", async () => {
    const body = bytesOf(64 * 1024, "wrong checksum");
    for (const [algorithm, wrong] of [
      ["CRC32", { ChecksumCRC32: await base64("CRC32", Buffer.from("other bytes")) }],
      ["SHA256", { ChecksumSHA256: await base64("SHA256", Buffer.from("other bytes")) }],
    ] as const) {
      const key = `wrong-${algorithm}.bin`;
      expect(await refusal(s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ...wrong })))).toEqual({ code: "BadDigest", status: 400 });
      expect(await refusal(s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key })))).toEqual({ code: "NotFound", status: 404 });
    }
  });

  it("UploadPart with a wrong checksum is refused with 400 BadDigest and ListParts shows no such part; the right one then goes in", async () => {
    const key = "wrong-part.bin";
    const part = bytesOf(MiB, "wrong part");
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ChecksumAlgorithm: "CRC32" }));
    try {
      const wrong = await base64("CRC32", Buffer.from("other bytes"));
      expect(await refusal(s3.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: 1, Body: part, ChecksumCRC32: wrong })))).toEqual({ code: "BadDigest", status: 400 });
      expect((await s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId }))).Parts ?? []).toEqual([]);

      await s3.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: 1, Body: part }));
      const listed = await s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId }));
      expect(listed.Parts?.map((p) => [p.PartNumber, p.Size, p.ChecksumCRC32])).toEqual([[1, part.length, await base64("CRC32", part)]]);
    } finally {
      await s3.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId }));
    }
  });
});
