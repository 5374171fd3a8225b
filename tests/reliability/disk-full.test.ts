import { execFileSync, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
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
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { movableClock, startS3Store, tmpLeftovers, type StoreServer } from "../../lib/objectstore/testing/fixtures";

/**
 * The disk under the embedded store fills up during a multipart upload. The store runs on a real
 * HTTP server, driven by the AWS SDK, with its files on an 8 MiB tmpfs mounted for this test (a
 * real ENOSPC from the kernel, whichever thread or call does the writing), never an injected error
 * that the store's write workers would not see. Mounting needs root: as root (CI) the test mounts
 * the tmpfs itself. Run as another user, it runs this same file again inside a user and mount
 * namespace of its own (`unshare --user --map-root-user --mount`), where it is root, and passes only
 * if that run passes. A mount or namespace that is refused fails the test, with the reason.
 *
 * Part 1 (5 MiB) is stored; the disk is filled; part 2 and a plain PUT fail with 507
 * InsufficientStorage, leave no temp file, no part and no object; space is freed; part 2 is sent
 * again, the upload completes with the right bytes, and a new upload works.
 */
const MiB = 1024 * 1024;
const credentials = { accessKeyId: "EASELTESTKEY", secretAccessKey: "test-secret-key" };
const clock = movableClock();
let base: string;
let mode: "tmpfs" | "refused" = "refused";
let store: StoreServer;
let s3: S3Client;
let fill: () => void;
let free: () => void;

const isRoot = process.getuid?.() === 0;
const THIS_FILE = fileURLToPath(import.meta.url);
let mountError = "";

function tryMount(dir: string): boolean {
  if (!isRoot) return false;
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=8m", "tmpfs", dir], { stdio: "pipe" });
    return true;
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString().trim();
    mountError = stderr || (err instanceof Error ? err.message : String(err));
    return false;
  }
}

beforeAll(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), "easel-diskfull-"));
  mode = tryMount(base) ? "tmpfs" : "refused";
  if (mode === "tmpfs") {
    const filler = path.join(base, "filler");
    fill = () => {
      const fd = fs.openSync(filler, "w");
      const chunk = Buffer.alloc(64 * 1024, 1);
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
      } finally {
        fs.closeSync(fd);
      }
    };
    free = () => fs.rmSync(filler, { force: true });
  }
  if (mode !== "tmpfs") return;
  store = await startS3Store({ root: path.join(base, "objects"), credentials: async () => credentials, clock });
  s3 = new S3Client({ endpoint: store.endpoint, region: "us-east-1", forcePathStyle: true, credentials, requestChecksumCalculation: "WHEN_REQUIRED", responseChecksumValidation: "WHEN_REQUIRED", maxAttempts: 1 });
  await s3.send(new CreateBucketCommand({ Bucket: "easel" }));
});

afterAll(async () => {
  s3?.destroy();
  await store?.close();
  if (mode === "tmpfs") execFileSync("umount", [base]);
  fs.rmSync(base, { recursive: true, force: true });
});

async function failure(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    const e = err as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
    return `${e.$metadata?.httpStatusCode} ${e.name}: ${e.message}`;
  }
  return "succeeded";
}

const md5 = (b: Uint8Array) => crypto.createHash("md5").update(b).digest("hex");

describe("disk full during a part upload", () => {
  it("the part fails with 507 InsufficientStorage, nothing partial is kept, the upload completes once the part is sent again", async () => {
    if (!isRoot) return runInOwnNamespace();
    if (mode !== "tmpfs") throw new Error(`running as root, but mounting the test's tmpfs was refused: ${mountError}`);
    const part1 = crypto.randomBytes(5 * MiB);
    const part2 = crypto.randomBytes(1 * MiB);
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: "easel", Key: "big.bin" }));
    const e1 = await s3.send(new UploadPartCommand({ Bucket: "easel", Key: "big.bin", UploadId, PartNumber: 1, Body: part1 }));

    fill();
    const started = Date.now();
    const refused = await failure(s3.send(new UploadPartCommand({ Bucket: "easel", Key: "big.bin", UploadId, PartNumber: 2, Body: part2 })));
    const refusedMs = Date.now() - started;
    expect(refused).toMatch(/^507 InsufficientStorage: The store's disk is full/);
    const single = await failure(s3.send(new PutObjectCommand({ Bucket: "easel", Key: "small.bin", Body: crypto.randomBytes(200 * 1024) })));
    expect(single).toMatch(/^507 InsufficientStorage/);
    // Nothing partial: no temp file, part 2 not listed, neither object visible.
    const leftovers = tmpLeftovers(store.lay);
    expect(leftovers).toEqual([]);
    const listedWhileFull = (await s3.send(new ListPartsCommand({ Bucket: "easel", Key: "big.bin", UploadId }))).Parts?.map((p) => [p.PartNumber, p.Size]);
    expect(listedWhileFull).toEqual([[1, 5 * MiB]]);
    expect(await failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "big.bin" })))).toMatch(/^404/);
    expect(await failure(s3.send(new HeadObjectCommand({ Bucket: "easel", Key: "small.bin" })))).toMatch(/^404/);
    expect((await s3.send(new ListObjectsV2Command({ Bucket: "easel" }))).KeyCount).toBe(0);

    free();
    const e2 = await s3.send(new UploadPartCommand({ Bucket: "easel", Key: "big.bin", UploadId, PartNumber: 2, Body: part2 }));
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: "big.bin", UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: e1.ETag }, { PartNumber: 2, ETag: e2.ETag }] } }));
    const got = await (await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "big.bin" }))).Body!.transformToByteArray();
    expect(md5(got)).toBe(md5(Buffer.concat([part1, part2])));

    // Later uploads work.
    const later = crypto.randomBytes(300 * 1024);
    await s3.send(new PutObjectCommand({ Bucket: "easel", Key: "later.bin", Body: later }));
    expect(md5(await (await s3.send(new GetObjectCommand({ Bucket: "easel", Key: "later.bin" }))).Body!.transformToByteArray())).toBe(md5(later));
    expect(tmpLeftovers(store.lay)).toEqual([]);

    console.log(
      `[faults] disk full (8 MiB tmpfs, real ENOSPC): part 2 → 507 InsufficientStorage in ${refusedMs} ms, PutObject → 507; 0 temp files left, parts listed ${JSON.stringify(listedWhileFull)}, no object visible; after freeing space part 2 sent again, upload completed (6 MiB, md5 matches), a new 300 KiB upload stored`,
    );
  }, 60_000);
});

/** Not root: this file again, as root of a user and mount namespace of its own (the tmpfs is mounted there). */
function runInOwnNamespace() {
  const vitest = path.resolve(path.dirname(THIS_FILE), "../../node_modules/vitest/vitest.mjs");
  const run = spawnSync("unshare", ["--user", "--map-root-user", "--mount", process.execPath, vitest, "run", THIS_FILE], { encoding: "utf8", timeout: 55_000 });
  const output = `${run.stdout ?? ""}${run.stderr ?? ""}`;
  if (run.error || run.status !== 0) throw new Error(`the run inside its own namespace failed (${run.error?.message ?? `exit ${run.status}`}):\n${output.slice(-4000)}`);
  expect(output).toMatch(/1 passed/);
  console.log(output.split("\n").find((line) => line.includes("[faults] disk full")) ?? "[faults] disk full: passed inside its own namespace");
}
