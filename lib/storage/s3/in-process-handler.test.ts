import crypto from "node:crypto";
import path from "node:path";
import { Readable } from "node:stream";
import {
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { layout } from "../../objectstore/disk/layout";
import { S3_MOUNT_PATH } from "../../objectstore/mounts";
import { handleS3Request } from "../../objectstore/s3/handler";
import { md5Hex, movableClock, storedBytes, tempDir, tmpLeftovers } from "../../objectstore/testing/fixtures";
import { inProcessRequestHandler } from "./in-process-handler";

const credentials = { accessKeyId: "EASELINPROCESS", secretAccessKey: "in-process-secret" };
const clock = movableClock();
const lay = layout(path.join(tempDir("in-process"), "objects"));
let served = 0;
const serve = (req: Request) => {
  served++;
  return handleS3Request(req, { lay, credentials: async () => credentials, clock, mountPath: S3_MOUNT_PATH });
};

function client(secretAccessKey = credentials.secretAccessKey) {
  return new S3Client({
    // An origin nothing listens on: every request must reach the store through the handler.
    endpoint: `http://easel.invalid:9${S3_MOUNT_PATH}`,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: credentials.accessKeyId, secretAccessKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 1,
    requestHandler: inProcessRequestHandler(serve),
  });
}

const s3 = client();
const Bucket = "easel";

describe("the AWS SDK against the embedded store in-process", () => {
  it("creates a bucket, puts, heads (with Content-Length) and reads an object, whole and by range", async () => {
    const before = served;
    await s3.send(new CreateBucketCommand({ Bucket }));
    const body = crypto.randomBytes(70_000);
    await s3.send(new PutObjectCommand({ Bucket, Key: "plain.bin", Body: body, ContentType: "application/x-test" }));
    const head = await s3.send(new HeadObjectCommand({ Bucket, Key: "plain.bin" }));
    expect([head.ContentLength, head.ContentType, head.ETag]).toEqual([70_000, "application/x-test", `"${md5Hex(body)}"`]);
    const whole = await s3.send(new GetObjectCommand({ Bucket, Key: "plain.bin" }));
    expect(Buffer.from(await whole.Body!.transformToByteArray()).equals(body)).toBe(true);
    const part = await s3.send(new GetObjectCommand({ Bucket, Key: "plain.bin", Range: "bytes=100-199" }));
    expect(part.ContentRange).toBe("bytes 100-199/70000");
    expect(Buffer.from(await part.Body!.transformToByteArray()).equals(body.subarray(100, 200))).toBe(true);
    expect(served - before).toBe(5);
  });

  it("streams a Node stream body in and keeps keys with spaces, unicode and reserved characters", async () => {
    const key = "dir with space/ü+*'(x)~=&.bin";
    const bytes = crypto.randomBytes(300_000);
    await s3.send(new PutObjectCommand({ Bucket, Key: key, Body: Readable.from([bytes.subarray(0, 100_000), bytes.subarray(100_000)]), ContentLength: bytes.length }));
    expect((await storedBytes(lay, key)).equals(bytes)).toBe(true);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket, Prefix: "dir with space/ü+*" }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual([key]);
  });

  it("runs a multipart upload: parts, ListParts, Complete", async () => {
    const Key = "multi.bin";
    const part1 = crypto.randomBytes(5 * 1024 * 1024);
    const part2 = crypto.randomBytes(1234);
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket, Key }));
    const e1 = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 1, Body: part1 }));
    const e2 = await s3.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: 2, Body: part2 }));
    const parts = await s3.send(new ListPartsCommand({ Bucket, Key, UploadId }));
    expect(parts.Parts?.map((p) => [p.PartNumber, p.Size])).toEqual([[1, part1.length], [2, part2.length]]);
    await s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: e1.ETag }, { PartNumber: 2, ETag: e2.ETag }] } }));
    expect((await storedBytes(lay, Key)).equals(Buffer.concat([part1, part2]))).toBe(true);
  });

  it("still checks the signature: a wrong secret is refused with 403 and stores nothing", async () => {
    const err = await client("not-the-secret")
      .send(new PutObjectCommand({ Bucket, Key: "forged.bin", Body: "x" }))
      .catch((e: { name: string; $metadata?: { httpStatusCode?: number } }) => e);
    expect([(err as { name: string }).name, (err as { $metadata: { httpStatusCode: number } }).$metadata.httpStatusCode]).toEqual(["SignatureDoesNotMatch", 403]);
    await expect(s3.send(new HeadObjectCommand({ Bucket, Key: "forged.bin" }))).rejects.toMatchObject({ name: "NotFound" });
  });

  it("an aborted upload leaves no object and no temp file", async () => {
    const controller = new AbortController();
    let sent = 0;
    const slow = new Readable({
      read() {
        if (sent === 2) {
          controller.abort();
          return;
        }
        sent++;
        setTimeout(() => this.push(crypto.randomBytes(64 * 1024)), 10);
      },
    });
    const failed = await s3
      .send(new PutObjectCommand({ Bucket, Key: "aborted.bin", Body: slow, ContentLength: 10 * 1024 * 1024 }), { abortSignal: controller.signal })
      .then(() => "stored", (e: Error) => e.name);
    expect(failed).toBe("AbortError");
    await expect.poll(() => tmpLeftovers(lay), { timeout: 5_000 }).toEqual([]);
    await expect(s3.send(new HeadObjectCommand({ Bucket, Key: "aborted.bin" }))).rejects.toMatchObject({ name: "NotFound" });
  });
});
