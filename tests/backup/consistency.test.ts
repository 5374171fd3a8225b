import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeArchive } from "../../lib/backup/archive-output";
import { restoreArchive } from "../../lib/backup/restore-archive";
import { runBackup } from "../../lib/backup/run-backup";
import { dataDirBackupKey } from "../../lib/backup/signing-key";
import { openDb, type DbHandle } from "../../lib/db/client";
import { layout, type Layout } from "../../lib/objectstore/disk/layout";
import { commitObject, createBucket, deleteObject, headObject, openObject, type ObjectRecord } from "../../lib/objectstore/disk/objects";

/**
 * The backup's point in time, made deterministic: the archive stream is paused right after the
 * snapshot (before its walk reaches the objects), the database and the store are changed, then the
 * archive is finished. The archive holds the database as of the snapshot, and every object that
 * existed then with its bytes, including those deleted meanwhile; the live store answered as if
 * no backup ran. Cancelling a backup and a crash in the middle leave nothing behind.
 */
const root = fs.mkdtempSync(path.join(os.tmpdir(), "easel-backup-pit-"));
const dataDir = path.join(root, "data");
let handle: DbHandle;
let pg: PGlite;
let lay: Layout;

beforeAll(async () => {
  handle = await openDb({ dataDir, role: "server" });
  pg = (handle.db as unknown as { $client: PGlite }).$client;
  lay = layout(path.join(dataDir, "objects"));
  await createBucket(lay, "easel", new Date());
  await pg.exec("CREATE TABLE backup_probe (n int)");
});

afterAll(async () => {
  await handle?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

async function put(key: string, bytes: Buffer): Promise<ObjectRecord> {
  fs.mkdirSync(lay.tmpDir, { recursive: true });
  const file = lay.tmpFile();
  fs.writeFileSync(file, bytes);
  const md5 = crypto.createHash("md5").update(bytes).digest("hex");
  return commitObject(lay, "easel", key, [{ path: file, size: bytes.length }], { size: bytes.length, md5, etag: md5, contentType: "application/octet-stream", headers: {}, userMetadata: {} }, new Date());
}

async function read(store: Layout, key: string): Promise<Buffer | null> {
  const opened = await openObject(store, "easel", key);
  return opened ? Buffer.concat(await opened.stream.toArray()) : null;
}

/** Pulls one chunk from the archive and leaves the rest waiting (backpressure stops the walk). */
async function firstChunk(stream: Readable): Promise<void> {
  await new Promise<void>((resolve) => stream.once("readable", resolve));
}

/** Restored with the data dir's own backup key, as `restore --key-file` would. */
const restoreSigned = async (file: string, target: string) => restoreArchive(file, target, undefined, { key: await dataDirBackupKey(dataDir) });

const leftovers = () => fs.readdirSync(dataDir).filter((n) => n.startsWith(".backup-"));

describe("a backup's point in time", () => {
  it("archives the database and every object as of the snapshot, whatever changes while it streams", async () => {
    const before = new Map<string, Buffer>();
    for (let i = 0; i < 40; i++) {
      const bytes = crypto.randomBytes(1000 + i * 997);
      await put(`ws/1/originals/${i}`, bytes);
      before.set(`ws/1/originals/${i}`, bytes);
    }
    await put("ws/1/thumb", Buffer.from("thumbnail as of the snapshot"));
    await pg.exec("INSERT INTO backup_probe VALUES (1)");

    const backup = await runBackup(pg, dataDir);
    await firstChunk(backup.stream);
    // After the snapshot: rows written, every object deleted (one key then written anew), one
    // object overwritten in place, one created.
    await pg.exec("INSERT INTO backup_probe VALUES (2)");
    for (const key of before.keys()) expect(await deleteObject(lay, "easel", key)).toBe(true);
    await put("ws/1/originals/0", Buffer.from("written after the snapshot"));
    await put("ws/1/thumb", Buffer.from("thumbnail rewritten after the snapshot"));
    await put("ws/1/after", Buffer.from("created after the snapshot"));
    // The live store answers as always: deleted is gone.
    expect(await headObject(lay, "easel", "ws/1/originals/5")).toBeNull();

    const file = path.join(root, "pit.tar");
    await writeArchive(backup.stream, file);
    const summary = await backup.summary;
    expect(summary.damaged).toEqual([]);
    // The hold is over: the deleted objects' files are gone from the live store, the staged copy too.
    expect(fs.readdirSync(path.join(lay.root, "easel")).flatMap((shard) => (shard.length === 2 ? fs.readdirSync(path.join(lay.root, "easel", shard)) : [])).filter((n) => n.endsWith(".data"))).toHaveLength(3);
    expect(leftovers()).toEqual([]);

    const restoredDir = path.join(root, "restored");
    await restoreSigned(file, restoredDir);
    const restored = layout(path.join(restoredDir, "objects"));
    // Every object of the snapshot with its bytes, the one deleted and written anew included.
    for (const [key, bytes] of before) expect((await read(restored, key))?.equals(bytes), key).toBe(true);
    // An object overwritten in place after the snapshot is archived as it is now (walk-objects.ts).
    expect((await read(restored, "ws/1/thumb"))?.toString()).toBe("thumbnail rewritten after the snapshot");
    const copy = await PGlite.create({ dataDir: path.join(restoredDir, "pg") });
    try {
      expect((await copy.query<{ n: number }>("SELECT n FROM backup_probe ORDER BY n")).rows).toEqual([{ n: 1 }]);
    } finally {
      await copy.close();
    }
  });

  it("a cancelled backup ends its hold and removes its copy at once", async () => {
    const record = await put("ws/2/x", crypto.randomBytes(4096));
    const backup = await runBackup(pg, dataDir);
    await firstChunk(backup.stream);
    await deleteObject(lay, "easel", "ws/2/x");
    const file = path.join(lay.objectDir("easel", "ws/2/x"), record.segments[0].file);
    expect(fs.existsSync(file), "kept while the backup holds").toBe(true);
    backup.stream.destroy();
    await expect(backup.summary).rejects.toThrow(/cancelled/);
    expect(fs.existsSync(file)).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  it("archives around an object whose file is missing or cut short in the data dir, and names it", async () => {
    const gone = await put("ws/4/gone", crypto.randomBytes(5000));
    const short = await put("ws/4/short", crypto.randomBytes(5000));
    fs.rmSync(path.join(lay.objectDir("easel", "ws/4/gone"), gone.segments[0].file));
    fs.truncateSync(path.join(lay.objectDir("easel", "ws/4/short"), short.segments[0].file), 100);
    const file = path.join(root, "damaged.tar");
    const backup = await runBackup(pg, dataDir);
    await writeArchive(backup.stream, file);
    expect((await backup.summary).damaged.sort()).toEqual(["easel/ws/4/gone", "easel/ws/4/short"]);
    const restoredDir = path.join(root, "restored-damaged");
    const result = await restoreSigned(file, restoredDir);
    expect(result.trailer.damaged.sort()).toEqual(["easel/ws/4/gone", "easel/ws/4/short"]);
    const restored = layout(path.join(restoredDir, "objects"));
    expect(await headObject(restored, "easel", "ws/4/gone")).toBeNull();
    expect(await headObject(restored, "easel", "ws/4/short")).toBeNull();
    await deleteObject(lay, "easel", "ws/4/gone");
    await deleteObject(lay, "easel", "ws/4/short");
  });

  it("writes and restores zstd archives through the system's zstd, and says so when it is missing", async () => {
    await put("ws/3/z", Buffer.from("compressed by zstd"));
    const file = path.join(root, "z.tar.zst");
    const backup = await runBackup(pg, dataDir);
    await writeArchive(backup.stream, file);
    await backup.summary;
    expect(fs.readFileSync(file).readUInt32LE(0)).toBe(0xfd2fb528);
    const restoredDir = path.join(root, "restored-zstd");
    await restoreSigned(file, restoredDir);
    expect((await read(layout(path.join(restoredDir, "objects")), "ws/3/z"))?.toString()).toBe("compressed by zstd");

    const saved = process.env.PATH;
    process.env.PATH = path.join(root, "no-programs-here");
    try {
      const without = await runBackup(pg, dataDir);
      await expect(writeArchive(without.stream, path.join(root, "none.tar.zst"))).rejects.toThrow(/zstd is not installed/);
      await expect(without.summary).rejects.toThrow();
    } finally {
      process.env.PATH = saved;
    }
    expect(fs.readdirSync(root).filter((n) => n.includes("none.tar.zst"))).toEqual([]);
    expect(leftovers()).toEqual([]);
  });

  it("what a backup interrupted by a crash left is removed by the next owner of the data dir", async () => {
    const crashed = path.join(root, "crashed");
    const first = await openDb({ dataDir: crashed, role: "server" });
    await first.close();
    const store = layout(path.join(crashed, "objects"));
    await createBucket(store, "easel", new Date());
    const orphan = path.join(store.root, "easel", "ab", `${"ab".repeat(32)}.${"cd".repeat(12)}.data`);
    fs.mkdirSync(path.dirname(orphan), { recursive: true });
    fs.writeFileSync(orphan, "kept for a backup that never ended");
    fs.mkdirSync(path.join(store.root, ".holds"));
    fs.writeFileSync(path.join(store.root, ".holds", "0123456789abcdef.list"), `${path.relative(store.root, orphan)}\n`);
    fs.mkdirSync(path.join(crashed, ".backup-0123456789ab", "pg"), { recursive: true });

    const next = await openDb({ dataDir: crashed, role: "server" });
    await next.close();
    expect(fs.existsSync(orphan)).toBe(false);
    expect(fs.readdirSync(path.join(store.root, ".holds"))).toEqual([]);
    expect(fs.readdirSync(crashed).filter((n) => n.startsWith(".backup-"))).toEqual([]);
  });
});
