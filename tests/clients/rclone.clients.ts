import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { bucketName, headStoredObject, MiB, SMALL_FILES, fileWorkDir, treeDigest, writeFileOfSize, writeSmallFiles, type Tool } from "./clients";
import { RCLONE_CHUNK_MIB, rcloneFor, remoteFiles } from "./rclone";

/**
 * rclone against the embedded store of a build: a local tree with a 100 MiB file (multipart) and
 * small files under non-ASCII, space-containing names goes up with `copy`, is compared with
 * `check` (md5 and size), changed and mirrored with `sync`, copied back down, copied server-side,
 * then deleted and purged.
 */
const BIG = "huge.bin";
const BIG_BYTES = 100 * MiB;
const { credentials } = inject("clientsStore");
let work: { dir: string; remove: () => Promise<void> };
let rclone: Tool;
let local: string;
const bucket = bucketName("rclone");
const remote = () => `easel:${bucket}/tree`;

beforeAll(async () => {
  work = await fileWorkDir("rclone");
  rclone = rcloneFor(credentials, work.dir);
  local = path.join(work.dir, "local");
  await writeSmallFiles(local);
  await writeFileOfSize(path.join(local, BIG), BIG_BYTES, "rclone big file");
});

afterAll(async () => {
  await work?.remove();
});

const localFiles = async () => Object.keys(await treeDigest(local)).sort();

describe("rclone with the embedded store", () => {
  it("creates a bucket and copies up a tree: the 100 MiB file in parts, every name as it is", async () => {
    await rclone.ok("mkdir", `easel:${bucket}`);
    await rclone.ok("copy", local, remote());
    expect(await remoteFiles(rclone, remote())).toEqual(await localFiles());
    expect(await remoteFiles(rclone, remote())).toEqual(expect.arrayContaining(SMALL_FILES));
    const stored = await headStoredObject(credentials, bucket, `tree/${BIG}`);
    expect(stored.ContentLength).toBe(BIG_BYTES);
    expect(stored.ETag).toMatch(new RegExp(`-${BIG_BYTES / (RCLONE_CHUNK_MIB * MiB)}"$`));
  });

  it("check finds 0 differences by md5 and size, and finds a changed byte", async () => {
    const clean = await rclone.ok("check", local, remote());
    expect(clean.stderr).toContain("0 differences found");
    expect(clean.stderr).toContain(`${SMALL_FILES.length + 1} matching files`);
    expect(clean.stderr).not.toMatch(/hashes could not be checked/);

    // Same size, other bytes: only the md5 can tell.
    const file = path.join(local, "hello.txt");
    const original = await fs.promises.readFile(file);
    await fs.promises.writeFile(file, Buffer.from(original.toString().toUpperCase()));
    const changed = await rclone.run("check", local, remote());
    await fs.promises.writeFile(file, original);
    expect(changed.code).not.toBe(0);
    expect(changed.stderr).toContain("1 differences found");
    expect(changed.stderr).toMatch(/hello\.txt: md5 differ/);
  });

  it("sync mirrors a removed, a changed and an added file, and check agrees", async () => {
    await fs.promises.rm(path.join(local, "with space.txt"));
    await fs.promises.writeFile(path.join(local, "docs/ünïcødé résumé.md"), "rewritten, and longer than before\n");
    await writeSmallFiles(local, ["新しい フォルダ/added file.txt"]);
    await rclone.ok("sync", local, remote());
    expect(await remoteFiles(rclone, remote())).toEqual(await localFiles());
    const check = await rclone.ok("check", local, remote());
    expect(check.stderr).toContain("0 differences found");
  });

  it("copies the tree back down byte for byte", async () => {
    const down = path.join(work.dir, "down");
    await rclone.ok("copy", remote(), down);
    expect(await treeDigest(down)).toEqual(await treeDigest(local));
  });

  it("copies server-side below the copy cutoff (CopyObject), the 100 MiB file included", async () => {
    const copied = await rclone.ok("copy", "-v", remote(), `easel:${bucket}/copies`, "--include", `{${BIG},hello.txt}`);
    expect(copied.stderr).toMatch(new RegExp(`${BIG}: Copied \\(server-side copy\\)`));
    expect(copied.stderr).toMatch(/hello\.txt: Copied \(server-side copy\)/);
    expect(await remoteFiles(rclone, `easel:${bucket}/copies`)).toEqual([BIG, "hello.txt"].sort());
    const sums = await rclone.ok("md5sum", `easel:${bucket}/copies`);
    const digest = await treeDigest(local);
    expect(sums.stdout).toContain(`${digest[BIG]}  ${BIG}`);
    expect(sums.stdout).toContain(`${digest["hello.txt"]}  hello.txt`);
  });

  it("deletes by filter, purges a folder and then the bucket, and the listings follow", async () => {
    await rclone.ok("delete", remote(), "--include", "*.txt");
    expect(await remoteFiles(rclone, remote())).toEqual(["docs/ünïcødé résumé.md", "emoji 🎨/palette.json", BIG].sort());

    await rclone.ok("purge", remote());
    expect(await remoteFiles(rclone, `easel:${bucket}`)).toEqual([`copies/${BIG}`, "copies/hello.txt"].sort());

    await rclone.ok("purge", `easel:${bucket}`);
    const buckets = await rclone.ok("lsd", "easel:");
    expect(buckets.stdout).not.toContain(bucket);
  });
});
