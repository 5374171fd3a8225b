import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AWS_CHUNK_MIB, awsFor } from "./awscli";
import { bucketName, fileWorkDir, md5OfFile, MiB, SMALL_FILES, treeDigest, writeFileOfSize, writeSmallFiles, type Tool } from "./clients";

/**
 * aws-cli (Debian's 2.9.19, /usr/bin/aws) against the embedded store of a build: `s3 cp` up and
 * down with a multipart file, a recursive copy under non-ASCII names, `s3 ls`, `s3 sync`, `s3 mv`,
 * an upload from stdin, `s3 presign`, `s3 rm`, `s3 rb`.
 */
const BIG_BYTES = 20 * MiB;
const BIG_KEY = "big files/twenty MiB.bin";
const { credentials } = inject("clientsStore");
let work: { dir: string; remove: () => Promise<void> };
let aws: Tool;
let big: string;
let local: string;
const bucket = bucketName("awscli");

beforeAll(async () => {
  work = await fileWorkDir("awscli");
  aws = awsFor(credentials, work.dir);
  big = path.join(work.dir, "big.bin");
  await writeFileOfSize(big, BIG_BYTES, "aws-cli big file");
  local = path.join(work.dir, "local");
  await writeSmallFiles(local);
});

afterAll(async () => {
  await work?.remove();
});

describe("aws-cli with the embedded store", () => {
  it("makes a bucket and copies a 20 MiB file up in parts", async () => {
    await aws.ok("s3", "mb", `s3://${bucket}`);
    await aws.ok("s3", "cp", "--only-show-errors", big, `s3://${bucket}/${BIG_KEY}`);
    const head = JSON.parse((await aws.ok("s3api", "head-object", "--bucket", bucket, "--key", BIG_KEY)).stdout);
    expect(head.ContentLength).toBe(BIG_BYTES);
    expect(head.ETag).toMatch(new RegExp(`-${BIG_BYTES / (AWS_CHUNK_MIB * MiB)}"$`));
  });

  it("copies it back down byte for byte", async () => {
    const down = path.join(work.dir, "down.bin");
    await aws.ok("s3", "cp", "--only-show-errors", `s3://${bucket}/${BIG_KEY}`, down);
    expect((await fs.promises.stat(down)).size).toBe(BIG_BYTES);
    expect(await md5OfFile(down)).toBe(await md5OfFile(big));
  });

  it("copies a tree with non-ASCII and space-containing names both ways, and ls lists it", async () => {
    await aws.ok("s3", "cp", "--only-show-errors", "--recursive", local, `s3://${bucket}/tree/`);
    const listed = (await aws.ok("s3", "ls", "--recursive", `s3://${bucket}/tree/`)).stdout;
    // "<date> <time> <size> <key>", the key last and possibly with spaces.
    const keys = listed.split("\n").filter(Boolean).map((line) => /^\S+ \S+\s+\d+ (.+)$/.exec(line)![1]);
    expect(keys.sort()).toEqual(SMALL_FILES.map((name) => `tree/${name}`).sort());

    const top = (await aws.ok("s3", "ls", `s3://${bucket}/`)).stdout;
    expect(top).toMatch(/PRE big files\//);
    expect(top).toMatch(/PRE tree\//);

    const down = path.join(work.dir, "tree-down");
    await aws.ok("s3", "cp", "--only-show-errors", "--recursive", `s3://${bucket}/tree/`, down);
    expect(await treeDigest(down)).toEqual(await treeDigest(local));
  });

  it("syncs a tree, moves a key server-side, streams an upload of unknown size from stdin, and presigns a GET", async () => {
    await aws.ok("s3", "sync", "--only-show-errors", local, `s3://${bucket}/synced/`);
    const resynced = await aws.ok("s3", "sync", local, `s3://${bucket}/synced/`);
    expect(resynced.stdout).toBe("");

    await aws.ok("s3", "mv", "--only-show-errors", `s3://${bucket}/synced/hello.txt`, `s3://${bucket}/moved/hello again.txt`);
    const moved = path.join(work.dir, "moved.txt");
    await aws.ok("s3", "cp", "--only-show-errors", `s3://${bucket}/moved/hello again.txt`, moved);
    expect(await fs.promises.readFile(moved, "utf8")).toBe("hello.txt\n");
    expect(await aws.run("s3", "ls", `s3://${bucket}/synced/hello.txt`)).toEqual({ code: expect.any(Number), stdout: "", stderr: "" });

    // `aws s3 cp - …` reads stdin: the size unknown, it goes multipart whatever it turns out to be.
    await aws.okWithStdin(big, "s3", "cp", "--only-show-errors", "-", `s3://${bucket}/streamed.bin`);
    const head = JSON.parse((await aws.ok("s3api", "head-object", "--bucket", bucket, "--key", "streamed.bin")).stdout);
    expect(head.ContentLength).toBe(BIG_BYTES);
    expect(head.ETag).toMatch(new RegExp(`-${BIG_BYTES / (AWS_CHUNK_MIB * MiB)}"$`));

    const url = (await aws.ok("s3", "presign", "--expires-in", "300", `s3://${bucket}/moved/hello again.txt`)).stdout.trim();
    const presigned = await fetch(url);
    expect(presigned.status).toBe(200);
    expect(await presigned.text()).toBe("hello.txt\n");
  });

  it("removes the objects, then the empty bucket", async () => {
    // Nothing listed and nothing said (aws-cli's `s3 ls` exits 1 when a prefix matches nothing, 0 for an empty bucket).
    const empty = { code: expect.any(Number), stdout: "", stderr: "" };
    await aws.ok("s3", "rm", "--only-show-errors", `s3://${bucket}/${BIG_KEY}`);
    expect(await aws.run("s3", "ls", "--recursive", `s3://${bucket}/big files/`)).toEqual(empty);
    expect((await aws.ok("s3", "ls", "--recursive", `s3://${bucket}/`)).stdout).toContain("tree/hello.txt");
    await aws.ok("s3", "rm", "--only-show-errors", "--recursive", `s3://${bucket}/`);
    expect(await aws.run("s3", "ls", "--recursive", `s3://${bucket}/`)).toEqual(empty);
    await aws.ok("s3", "rb", `s3://${bucket}`);
    expect((await aws.ok("s3", "ls")).stdout).not.toContain(bucket);
  });
});
