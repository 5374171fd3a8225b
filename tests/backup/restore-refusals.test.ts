import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import tar from "tar-stream";
import { afterAll, describe, expect, it } from "vitest";
import { FORMAT, UNSIGNED_FORMAT_VERSION } from "../../lib/backup/format";
import { RestoreError, restoreArchive } from "../../lib/backup/restore-archive";
import { easel } from "./helpers";

/**
 * `restore` lays out only what an Easel backup holds, and only into an empty or missing dir: an
 * archive that names anything outside the data dir, a link, a device, a record pointing at files
 * of another object, bytes that do not match their md5, or an archive cut short is refused, and
 * nothing is left behind (not even the half-restored dir). These archives are built by hand in
 * the unsigned format (version 1) and restored `--without-key`, so each refusal is the structural
 * check's own; signatures, digests and the database check are tested in signed-archives.test.ts.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-restore-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Entry = Partial<tar.Header> & { name: string; body?: Buffer };
const md5 = (b: Buffer) => crypto.createHash("md5").update(b).digest("hex");
const sha = (s: string) => crypto.createHash("sha256").update(s).digest("hex");

const manifest = (): Entry => ({ name: "easel-backup.json", body: Buffer.from(JSON.stringify({ format: FORMAT, version: UNSIGNED_FORMAT_VERSION, created_at: new Date().toISOString(), pg_version: "18", assets: 1, versions: 0, db_locked_ms: 1 })) });
const trailer = (objects: number): Entry => ({ name: "easel-backup-end.json", body: Buffer.from(JSON.stringify({ objects, object_bytes: 0, damaged: [] })) });

/** An object of the embedded store as the archive holds it: record, then data files. */
function object(key: string, parts: Buffer[], opts: { md5?: string; fileOverride?: string } = {}): Entry[] {
  const hash = sha(key);
  const folder = `objects/easel/${hash.slice(0, 2)}`;
  const files = parts.map((_, i) => opts.fileOverride ?? `${hash}.${"ab".repeat(12)}${parts.length > 1 ? `.${i + 1}` : ""}.data`);
  const whole = Buffer.concat(parts);
  const record = { key, size: whole.length, md5: opts.md5 ?? md5(whole), etag: md5(whole), contentType: "image/png", lastModified: new Date().toISOString(), segments: parts.map((p, i) => ({ file: files[i], size: p.length })), headers: {}, userMetadata: {} };
  return [{ name: `${folder}/${hash}.json`, body: Buffer.from(JSON.stringify(record)) }, ...parts.map((p, i) => ({ name: `${folder}/${files[i]}`, body: p }))];
}

const bucket = (): Entry => ({ name: "objects/easel/.bucket.json", body: Buffer.from('{"created":"2026-01-01T00:00:00.000Z"}') });
const pgFiles = (): Entry[] => [{ name: "pg/", type: "directory" }, { name: "pg/pg_tblspc/", type: "directory" }, { name: "pg/PG_VERSION", body: Buffer.from("18\n") }];

async function archive(name: string, entries: Entry[], opts: { gzip?: boolean; cut?: number } = {}): Promise<string> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const c of pack) chunks.push(c as Buffer);
  })();
  for (const { body, ...header } of entries) {
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error | null) => (err ? reject(err) : resolve());
      const h = { type: "file" as const, mode: 0o600, ...header };
      if (body) pack.entry({ ...h, size: body.length }, body, done);
      else pack.entry(h, done);
    });
  }
  pack.finalize();
  await done;
  let bytes = Buffer.concat(chunks);
  if (opts.cut) bytes = bytes.subarray(0, opts.cut);
  if (opts.gzip) bytes = zlib.gzipSync(bytes);
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
}

const WITHOUT_KEY = { key: null, withoutKey: true };

/** What a restore of `file` into a fresh target leaves: nothing at all when it is refused. */
async function refused(file: string, message: RegExp) {
  const parent = fs.mkdtempSync(path.join(dir, "target-"));
  const target = path.join(parent, "data");
  await expect(restoreArchive(file, target, undefined, WITHOUT_KEY)).rejects.toThrow(message);
  await expect(restoreArchive(file, target, undefined, WITHOUT_KEY)).rejects.toBeInstanceOf(RestoreError);
  expect(fs.readdirSync(parent), "no restored or half-restored dir").toEqual([]);
  expect(fs.existsSync(path.join(dir, "escaped"))).toBe(false);
}

describe("restore", () => {
  it.each([
    ["a parent-directory name", [{ name: "../escaped", body: Buffer.from("x") }], /outside the data dir/],
    ["a name climbing out of pg/", [{ name: "pg/../../escaped", body: Buffer.from("x") }], /outside the data dir/],
    ["an absolute name", [{ name: "/tmp/escaped", body: Buffer.from("x") }], /outside the data dir/],
    ["a symbolic link", [{ name: "pg/link", type: "symlink", linkname: "/etc/passwd" }], /of type symlink/],
    ["a hard link", [{ name: "pg/hard", type: "link", linkname: "/etc/passwd" }], /of type link/],
    ["a device", [{ name: "pg/dev", type: "character-device", devmajor: 1, devminor: 3 }], /of type character-device/],
    ["a fifo", [{ name: "pg/fifo", type: "fifo" }], /of type fifo/],
    ["a file outside pg/ and objects/", [{ name: "easel.lock", body: Buffer.from("{}") }], /no part of an Easel data dir/],
    ["a bucket that is no bucket name", [{ name: "objects/.uploads/x/upload.json", body: Buffer.from("{}") }], /not a bucket name/],
  ] as [string, Entry[], RegExp][])("refuses an archive holding %s", async (label, hostile, message) => {
    await refused(await archive(`${label.replace(/\W+/g, "-")}.tar`, [manifest(), ...pgFiles(), ...hostile, trailer(0)]), message);
  });

  it("refuses records that name another object's files or a path, and bytes that do not match their md5", async () => {
    const bytes = Buffer.from("the object's bytes");
    await refused(await archive("record-escape.tar", [manifest(), bucket(), ...object("k", [bytes], { fileOverride: "../../../escaped.data" }).slice(0, 1), trailer(1)]), /not an object record the store wrote/);
    const other = object("other-key", [bytes])[1].name.split("/").at(-1)!;
    await refused(await archive("record-foreign.tar", [manifest(), bucket(), ...object("k", [bytes], { fileOverride: other }), trailer(1)]), /not an object record the store wrote/);
    const misfiled = object("k", [bytes]);
    misfiled[0] = { ...misfiled[0], body: Buffer.from(JSON.stringify({ ...JSON.parse(misfiled[0].body!.toString()), key: "another key" })) };
    await refused(await archive("record-misfiled.tar", [manifest(), bucket(), ...misfiled, trailer(1)]), /not filed under its key/);
    await refused(await archive("md5.tar", [manifest(), bucket(), ...object("k", [bytes], { md5: md5(Buffer.from("other bytes")) }), trailer(1)]), /damaged archive/);
    await refused(await archive("orphan-data.tar", [manifest(), bucket(), object("k", [bytes])[1], trailer(0)]), /not the next data file/);
  });

  it("refuses an archive cut short, one that is no Easel backup, and one naming a file twice", async () => {
    const entries = [manifest(), ...pgFiles(), bucket(), ...object("k", [crypto.randomBytes(200_000)]), trailer(1)];
    const whole = fs.statSync(await archive("whole.tar", entries)).size;
    await refused(await archive("cut.tar", entries, { cut: Math.floor(whole / 2) }), /could not be read|cut short/);
    await refused(await archive("cut-trailer.tar", entries.slice(0, -1)), /cut short/);
    await refused(await archive("not-easel.tar", [{ name: "pg/PG_VERSION", body: Buffer.from("18") }]), /not an Easel backup/);
    await refused(await archive("twice.tar", [manifest(), { name: "pg/PG_VERSION", body: Buffer.from("18") }, { name: "pg/PG_VERSION", body: Buffer.from("17") }, trailer(0)]), /twice/);
    const notTar = path.join(dir, "random.bin");
    fs.writeFileSync(notTar, crypto.randomBytes(10_000));
    await refused(notTar, /could not be read|not an Easel backup/);
  });

  it("through the CLI: refuses a non-empty dir, a hostile archive and an unsigned one without --without-key, exit 1, touching nothing", async () => {
    const good = await archive("good.tar", [manifest(), ...pgFiles(), trailer(0)]);
    const occupied = path.join(dir, "occupied");
    fs.mkdirSync(occupied);
    fs.writeFileSync(path.join(occupied, "keep.txt"), "mine");
    const r = await easel(dir, ["restore", good, "--data-dir", occupied]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is not empty/);
    expect(fs.readdirSync(occupied)).toEqual(["keep.txt"]);

    const hostile = await archive("hostile.tar", [manifest(), { name: "../escaped", body: Buffer.from("x") }, trailer(0)]);
    const h = await easel(dir, ["restore", hostile, "--data-dir", path.join(dir, "fresh"), "--without-key"]);
    expect(h.code).toBe(1);
    expect(h.stderr).toMatch(/outside the data dir/);
    expect(fs.existsSync(path.join(dir, "fresh"))).toBe(false);
    expect(fs.existsSync(path.join(dir, "escaped"))).toBe(false);

    const unsigned = await easel(dir, ["restore", good, "--data-dir", path.join(dir, "fresh")]);
    expect(unsigned.code).toBe(1);
    expect(unsigned.stderr).toMatch(/carries no signature: restore it with --without-key/);
    expect(fs.existsSync(path.join(dir, "fresh"))).toBe(false);

    expect((await easel(dir, ["restore", good])).code).toBe(2);
    expect((await easel(dir, ["restore", good, "--data-dir", path.join(dir, "fresh"), "--without-key", "--key-file", good])).code).toBe(2);
  }, 120_000);
});
