import fs from "node:fs/promises";
import path from "node:path";
import { isMissing, readJson } from "../objectstore/disk/atomic";
import type { Hold } from "../objectstore/disk/holds";
import type { ObjectRecord } from "../objectstore/disk/objects";

/** A file to archive: where it is, and its name in the archive (relative to the data dir). */
export type FileToArchive = { abs: string; name: string; size: number };

export type WalkedItem =
  | { kind: "bucket"; marker: FileToArchive }
  | { kind: "object"; bucket: string; recordName: string; record: ObjectRecord; segments: FileToArchive[] };

/**
 * Every bucket and object of the embedded store as of the backup's snapshot, in a fixed order
 * (buckets, shard folders and record names sorted). Only committed objects: uploads and resumable
 * sessions in progress (.uploads, .sessions), bytes being received (.tmp) and the holds' journals
 * are in-flight state that a restored server does without (a client restarts such an upload).
 *
 * An object deleted after the snapshot is walked as the snapshot knew it, from the hold's copy of
 * its record (its files are kept by the hold). An object overwritten after the snapshot is walked
 * as it is now: Easel never overwrites bytes a database row names with other bytes (each upload
 * gets a key of its own; derived files such as thumbnails are rewritten with the same content).
 */
export async function* walkObjects(root: string, hold: Hold): AsyncGenerator<WalkedItem> {
  for (const bucket of await sortedNames(root)) {
    if (bucket.startsWith(".")) continue;
    const bucketDir = path.join(root, bucket);
    const marker = path.join(bucketDir, ".bucket.json");
    const markerStat = await statFile(marker);
    if (!markerStat) continue;
    yield { kind: "bucket", marker: { abs: marker, name: archiveName(bucket, ".bucket.json"), size: markerStat.size } };
    for (const shard of await sortedNames(bucketDir)) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      const shardRel = path.join(bucket, shard);
      const listed = (await sortedNames(path.join(bucketDir, shard))).filter((n) => n.endsWith(".json"));
      const names = [...new Set([...listed, ...hold.deletedIn(shardRel)])].sort();
      for (const name of names) {
        const rel = path.join(shardRel, name);
        const record = await recordAtSnapshot(root, rel, hold);
        if (!record) continue;
        const segments = record.segments.map((s) => {
          // Records are the store's own; a file name with a path in it is not one of them.
          if (path.basename(s.file) !== s.file || !s.file.endsWith(".data")) throw new Error(`the record ${rel} names a data file outside its folder: ${s.file}`);
          return { abs: path.join(root, shardRel, s.file), name: archiveName(shardRel, s.file), size: s.size };
        });
        yield { kind: "object", bucket, recordName: archiveName(rel), record, segments };
      }
    }
  }
}

async function recordAtSnapshot(root: string, rel: string, hold: Hold): Promise<ObjectRecord | null> {
  const deleted = hold.deletedRecord(rel) as ObjectRecord | undefined;
  if (deleted) return deleted;
  const record = await readJson<ObjectRecord>(path.join(root, rel));
  // Deleted between the listing and the read: the hold has it.
  return record ?? ((hold.deletedRecord(rel) as ObjectRecord | undefined) ?? null);
}

const archiveName = (...parts: string[]) => ["objects", ...parts].join("/").split(path.sep).join("/");

async function sortedNames(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir)).sort();
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
}

async function statFile(file: string) {
  try {
    const stat = await fs.stat(file);
    return stat.isFile() ? stat : null;
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}
