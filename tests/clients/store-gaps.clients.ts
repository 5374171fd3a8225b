import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { awsFor } from "./awscli";
import { bucketName, headStoredObject, MiB, md5OfFile, fileWorkDir, writeFileOfSize, type Tool } from "./clients";
import { rcloneFor } from "./rclone";

/**
 * What the real clients ask of the store beyond the basics (contract §10, "Embedded S3 store,
 * beyond the subset of §4"): rclone's multipart server-side copy (UploadPartCopy) above its copy
 * cutoff; from aws-cli a create-only PutObject (`If-None-Match: *`), `x-amz-checksum-*` verified
 * and echoed, `?partNumber=` reads, and server-side-encryption headers refused with 501.
 */
const { credentials } = inject("clientsStore");
let work: { dir: string; remove: () => Promise<void> };
let rclone: Tool;
let aws: Tool;
const bucket = bucketName("gaps");
const BIG_BYTES = 12 * MiB;

/**
 * aws-cli 2.9.19 predates PutObject's IfNoneMatch (`--if-none-match` is an unknown option). It
 * loads service models from AWS_DATA_PATH before its own, so the same model with that one member
 * added (a header, as S3's current model has it) gives `put-object` the option.
 */
function putObjectIfNoneMatchModel(work: string): string {
  const botocore = execFileSync("/usr/bin/python3", ["-c", "import awscli.botocore, os; print(os.path.dirname(awscli.botocore.__file__))"], { encoding: "utf8" }).trim();
  const model = JSON.parse(fs.readFileSync(path.join(botocore, "data/s3/2006-03-01/service-2.json"), "utf8"));
  model.shapes.IfNoneMatch ??= { type: "string" };
  model.shapes.PutObjectRequest.members.IfNoneMatch ??= { shape: "IfNoneMatch", location: "header", locationName: "If-None-Match" };
  const dataPath = path.join(work, "aws-models");
  fs.mkdirSync(path.join(dataPath, "s3/2006-03-01"), { recursive: true });
  fs.writeFileSync(path.join(dataPath, "s3/2006-03-01/service-2.json"), JSON.stringify(model));
  return dataPath;
}

beforeAll(async () => {
  work = await fileWorkDir("gaps");
  rclone = rcloneFor(credentials, work.dir);
  aws = awsFor(credentials, work.dir, { AWS_DATA_PATH: putObjectIfNoneMatchModel(work.dir) });
  await rclone.ok("mkdir", `easel:${bucket}`);
});

afterAll(async () => {
  await work?.remove();
});

describe("the store and the real clients: UploadPartCopy, conditional writes, checksums, part reads, SSE", () => {
  it("rclone copies server-side above --s3-copy-cutoff (CreateMultipartUpload, UploadPartCopy, Complete)", async () => {
    const local = path.join(work.dir, "big.bin");
    await writeFileOfSize(local, BIG_BYTES, "server-side copy");
    await rclone.ok("copyto", local, `easel:${bucket}/source.bin`);
    const copied = await rclone.ok("copyto", "-v", "--s3-copy-cutoff", "5M", `easel:${bucket}/source.bin`, `easel:${bucket}/copy.bin`);
    expect(copied.stderr).toMatch(/source\.bin: Copied \(server-side copy\) to: copy\.bin/);
    const stored = await headStoredObject(credentials, bucket, "copy.bin");
    expect(stored.ContentLength).toBe(BIG_BYTES);
    expect(stored.ETag).toMatch(/-3"$/);
    const sums = await rclone.ok("md5sum", `easel:${bucket}/copy.bin`);
    expect(sums.stdout).toBe(`${await md5OfFile(local)}  copy.bin\n`);
  });

  it("aws s3api put-object --if-none-match '*' creates once, then answers 412 PreconditionFailed", async () => {
    const body = path.join(work.dir, "once.txt");
    await fs.promises.writeFile(body, "first\n");
    const put = ["s3api", "put-object", "--bucket", bucket, "--key", "once.txt", "--body", body, "--if-none-match", "*"];
    await aws.ok(...put);
    await fs.promises.writeFile(body, "second\n");
    const again = await aws.run(...put);
    expect(again.code, again.stderr).not.toBe(0);
    expect(again.stderr).toMatch(/\(PreconditionFailed\)/);
    const down = path.join(work.dir, "once-down.txt");
    await aws.ok("s3", "cp", "--only-show-errors", `s3://${bucket}/once.txt`, down);
    expect(await fs.promises.readFile(down, "utf8")).toBe("first\n");
  });

  it("aws s3api put-object --checksum-sha256: a wrong value is refused and stores nothing, the right one is echoed", async () => {
    const body = path.join(work.dir, "checked.txt");
    await fs.promises.writeFile(body, "checked\n");
    const wrong = await aws.run("s3api", "put-object", "--bucket", bucket, "--key", "checked.txt", "--body", body, "--checksum-sha256", Buffer.alloc(32).toString("base64"));
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/\((BadDigest|InvalidRequest)\)/);
    expect((await aws.run("s3api", "head-object", "--bucket", bucket, "--key", "checked.txt")).stderr).toMatch(/\(404\)/);

    const sha256 = crypto.createHash("sha256").update("checked\n").digest("base64");
    const right = JSON.parse((await aws.ok("s3api", "put-object", "--bucket", bucket, "--key", "checked.txt", "--body", body, "--checksum-sha256", sha256)).stdout);
    expect(right.ChecksumSHA256).toBe(sha256);
    const head = JSON.parse((await aws.ok("s3api", "head-object", "--bucket", bucket, "--key", "checked.txt", "--checksum-mode", "ENABLED")).stdout);
    expect(head.ChecksumSHA256).toBe(sha256);
  });

  it("aws s3api put-object --checksum-algorithm CRC32: the CLI's checksum is verified and echoed", async () => {
    const body = path.join(work.dir, "crc.bin");
    await writeFileOfSize(body, 3 * MiB, "crc32");
    const put = JSON.parse((await aws.ok("s3api", "put-object", "--bucket", bucket, "--key", "crc.bin", "--body", body, "--checksum-algorithm", "CRC32")).stdout);
    expect(put.ChecksumCRC32).toMatch(/^[A-Za-z0-9+/]{6}==$/);
    const head = JSON.parse((await aws.ok("s3api", "head-object", "--bucket", bucket, "--key", "crc.bin", "--checksum-mode", "ENABLED")).stdout);
    expect(head.ChecksumCRC32).toBe(put.ChecksumCRC32);
  });

  it("aws s3api head-object/get-object --part-number read one part of a multipart object", async () => {
    const local = path.join(work.dir, "parts.bin");
    await writeFileOfSize(local, BIG_BYTES, "parts");
    await aws.ok("s3", "cp", "--only-show-errors", local, `s3://${bucket}/parts.bin`);
    const head = JSON.parse((await aws.ok("s3api", "head-object", "--bucket", bucket, "--key", "parts.bin", "--part-number", "1")).stdout);
    expect(head.ContentLength).toBe(5 * MiB);
    expect(head.PartsCount).toBe(3);
    const part = path.join(work.dir, "part-2.bin");
    const got = JSON.parse((await aws.ok("s3api", "get-object", "--bucket", bucket, "--key", "parts.bin", "--part-number", "2", part)).stdout);
    expect(got.ContentRange).toBe(`bytes ${5 * MiB}-${10 * MiB - 1}/${BIG_BYTES}`);
    const whole = await fs.promises.readFile(local);
    expect((await fs.promises.readFile(part)).equals(whole.subarray(5 * MiB, 10 * MiB))).toBe(true);
  });

  it("aws s3api put-object --server-side-encryption answers 501 NotImplemented and stores nothing", async () => {
    const body = path.join(work.dir, "sse.txt");
    await fs.promises.writeFile(body, "encrypted?\n");
    const put = await aws.run("s3api", "put-object", "--bucket", bucket, "--key", "sse.txt", "--body", body, "--server-side-encryption", "AES256");
    expect(put.code).not.toBe(0);
    expect(put.stderr).toMatch(/\(NotImplemented\)/);
    expect((await aws.run("s3api", "head-object", "--bucket", bucket, "--key", "sse.txt")).stderr).toMatch(/\(404\)/);
  });
});
