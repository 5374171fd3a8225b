import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { log } from "../../log/logger.mjs";
import { isMissing, readJson, syncDir, writeJsonAtomic } from "./atomic";
import type { StoredChecksum } from "./checksum-algorithms";
import { randomName, keyHash, type Layout } from "./layout";
import { withLock } from "./lock";
import { noteDeletedRecord, pin, retire, unpin } from "./pins";

/** Response headers an object keeps from its upload (S3 and GCS both replay them on GET). */
export type StoredHeaders = Partial<Record<"cache-control" | "content-disposition" | "content-encoding" | "content-language" | "expires", string>>;

/** One file holding a run of the object's bytes, in order (a multipart object keeps one per part). */
export type Segment = { file: string; size: number };

export type ObjectRecord = {
  key: string;
  size: number;
  /** md5 of the whole object, hex, computed from its bytes as they arrived. */
  md5: string;
  /** S3 ETag without quotes: the md5 for a single PUT, md5-of-part-md5s "-N" for multipart. */
  etag: string;
  contentType: string;
  lastModified: string;
  /** Files (in the record's folder) that hold the bytes, concatenated in this order. */
  segments: Segment[];
  headers: StoredHeaders;
  userMetadata: Record<string, string>;
  /** The multipart upload that produced the object, so that a repeated completion answers as the first did. */
  completedUploadId?: string;
  /** The x-amz-checksum the object was uploaded with (verified then), served back on request. */
  checksum?: StoredChecksum;
};

export type NewObject = Omit<ObjectRecord, "key" | "segments" | "lastModified">;

/** A fully received file, flushed to disk, waiting to become (part of) an object. */
export type ReceivedFile = { path: string; size: number };

/**
 * `overwrite`: the new object replaces any object at the key (S3's and GCS's own semantics).
 * `create-only`: the key must be free. An existing object with the same size and md5 counts as
 * this very write done before (a client retrying after a lost answer): it stands, nothing changes,
 * and the write succeeds. Anything else at the key refuses the write (ObjectExistsError).
 */
export type CommitMode = "overwrite" | "create-only";

/** A create-only write found other bytes at its key; nothing was changed. */
export class ObjectExistsError extends Error {
  constructor(
    readonly bucket: string,
    readonly key: string,
  ) {
    super(`an object with other bytes already exists at ${bucket}/${key}`);
    this.name = "ObjectExistsError";
  }
}

/**
 * What a write asks of the object it would replace (S3's conditional writes): `ifNoneMatch`, that
 * there is none; `ifMatch`, that there is one and its ETag (unquoted) is this.
 */
export type WriteCondition = { ifNoneMatch?: boolean; ifMatch?: string };

/** A write's condition did not hold; nothing was changed. `missing`: If-Match found no object at all. */
export class PreconditionFailedError extends Error {
  constructor(
    readonly key: string,
    readonly condition: "If-None-Match" | "If-Match",
    readonly missing: boolean,
  ) {
    super(missing ? `${condition}: there is no object at this key` : `${condition} did not hold`);
    this.name = "PreconditionFailedError";
  }
}

/** Throws when `condition` does not hold for `existing` (the object at the key, or null). */
export function checkWriteCondition(key: string, existing: ObjectRecord | null, condition: WriteCondition | undefined): void {
  if (!condition) return;
  if (condition.ifNoneMatch && existing) throw new PreconditionFailedError(key, "If-None-Match", false);
  if (condition.ifMatch !== undefined) {
    if (!existing) throw new PreconditionFailedError(key, "If-Match", true);
    if (existing.etag !== condition.ifMatch) throw new PreconditionFailedError(key, "If-Match", false);
  }
}

/** The record at a key as it is now, read without the object's lock (an early look before a body is received). */
export async function currentRecord(lay: Layout, bucket: string, key: string): Promise<ObjectRecord | null> {
  await requireBucket(lay, bucket);
  return readJson<ObjectRecord>(lay.objectRecord(bucket, key));
}

export class NoSuchBucketError extends Error {
  constructor(readonly bucket: string) {
    super(`bucket ${bucket} does not exist`);
  }
}

export async function bucketExists(lay: Layout, bucket: string): Promise<boolean> {
  try {
    await fs.access(lay.bucketMarker(bucket));
    return true;
  } catch {
    return false;
  }
}

async function requireBucket(lay: Layout, bucket: string) {
  if (!(await bucketExists(lay, bucket))) throw new NoSuchBucketError(bucket);
}

const segmentPaths = (lay: Layout, bucket: string, record: ObjectRecord) => record.segments.map((s) => path.join(lay.objectDir(bucket, record.key), s.file));

/**
 * Makes received files (in order) the object `key`. The files are moved, never copied: a
 * multipart upload's parts become the object's segments as they are. The record is the commit
 * point, renamed into place after the files, so a reader sees the previous object or the new one,
 * never a partial one. The replaced object's files are retired afterwards.
 *
 * `create-only` is decided here, under the object's lock, so two writers racing for a free key
 * cannot both pass: the second finds the first's record. When the existing object is the same
 * bytes, it is returned and the received files are removed (the caller gave them up, as with a
 * commit), unless the existing object's files are gone or truncated: then the write restores them.
 * `condition` (If-None-Match / If-Match) is judged at the same point, under the same lock, so a
 * compare-and-swap cannot be overtaken between its check and its commit.
 * On every failure, ObjectExistsError and PreconditionFailedError included, the files stay the caller's.
 */
export async function commitObject(
  lay: Layout,
  bucket: string,
  key: string,
  files: ReceivedFile[],
  object: NewObject,
  now: Date,
  mode: CommitMode = "overwrite",
  condition?: WriteCondition,
): Promise<ObjectRecord> {
  await requireBucket(lay, bucket);
  return withLock(`object:${bucket}/${key}`, async () => {
    if (condition) checkWriteCondition(key, await readJson<ObjectRecord>(lay.objectRecord(bucket, key)), condition);
    if (mode === "create-only") {
      const existing = await readJson<ObjectRecord>(lay.objectRecord(bucket, key));
      const sameBytes = existing !== null && existing.size === object.size && existing.md5 === object.md5;
      // The same bytes whose files were lost: this write puts them back (below, as an overwrite).
      if (sameBytes && !(await findDamage(lay, bucket, existing))) {
        await Promise.all(files.map((f) => fs.rm(f.path, { force: true })));
        return existing;
      }
      if (existing && !sameBytes) throw new ObjectExistsError(bucket, key);
    }
    const dir = lay.objectDir(bucket, key);
    await fs.mkdir(dir, { recursive: true });
    const stem = `${keyHash(key)}.${randomName()}`;
    const segments: Segment[] = [];
    // On failure the files go back where they came from: the caller still owns them (a failed
    // completion leaves the upload's parts in place, ready for another attempt).
    const putBack = () => Promise.all(segments.map((s, i) => fs.rename(path.join(dir, s.file), files[i].path).catch(() => undefined)));
    let previous: ObjectRecord | null;
    const record: ObjectRecord = { ...object, key, segments, lastModified: now.toISOString() };
    try {
      for (const [i, f] of files.entries()) {
        const file = files.length === 1 ? `${stem}.data` : `${stem}.${i + 1}.data`;
        await fs.rename(f.path, path.join(dir, file));
        segments.push({ file, size: f.size });
      }
      // One flush of the folder (after the record's rename, below) makes these renames durable too.
      previous = await readJson<ObjectRecord>(lay.objectRecord(bucket, key));
      await writeJsonAtomic(lay, lay.objectRecord(bucket, key), record);
    } catch (err) {
      await putBack();
      throw err;
    }
    if (previous) await retire(segmentPaths(lay, bucket, previous));
    return record;
  });
}

/** A segment file that is not on disk at its recorded size: gone (`found` null) or truncated/grown. */
export type Damage = { file: string; recorded: number; found: number | null };

/**
 * Whether every file of `record` is on disk at the size the record gives it: one stat per segment.
 * Nothing is read, so bytes changed in place at the same size pass (`storage verify` reads them).
 */
async function findDamage(lay: Layout, bucket: string, record: ObjectRecord): Promise<Damage | null> {
  const files = segmentPaths(lay, bucket, record);
  const sizes = await Promise.all(
    files.map((f) =>
      fs.stat(f).then(
        (st) => st.size,
        (err: unknown) => {
          if (isMissing(err)) return null;
          throw err;
        },
      ),
    ),
  );
  const i = sizes.findIndex((size, n) => size !== record.segments[n].size);
  return i < 0 ? null : { file: record.segments[i].file, recorded: record.segments[i].size, found: sizes[i] };
}

const sameCommit = (a: ObjectRecord | null, b: ObjectRecord | null) => a !== null && b !== null && a.segments[0]?.file === b.segments[0]?.file && a.lastModified === b.lastModified;

/** What the store holds at a key: its record and, when its bytes are not all there, what is wrong. */
export type ObjectState = { record: ObjectRecord; damage: Damage | null };

/**
 * The record at `key` and whether its files are intact. A commit or delete landing between the
 * record's read and the stats retires the files just read about, which would look like damage:
 * damage counts only when the record is still the same commit afterwards.
 */
export async function inspectObject(lay: Layout, bucket: string, key: string): Promise<ObjectState | null> {
  await requireBucket(lay, bucket);
  let record = await readJson<ObjectRecord>(lay.objectRecord(bucket, key));
  for (let attempt = 0; record && attempt < 5; attempt++) {
    const damage = await findDamage(lay, bucket, record);
    if (!damage) return { record, damage: null };
    const current = await readJson<ObjectRecord>(lay.objectRecord(bucket, key));
    if (sameCommit(current, record)) return { record, damage };
    record = current;
  }
  return record ? { record, damage: await findDamage(lay, bucket, record) } : null;
}

/**
 * Logged (an error: stored bytes were lost) each time the store meets a record whose bytes are
 * gone: that object answers "no such key".
 */
function warnDamaged(bucket: string, key: string, damage: Damage): void {
  const what = damage.found === null ? `${damage.file} is missing` : `${damage.file} holds ${damage.found} bytes, the record says ${damage.recorded}`;
  log().error(
    { component: "objectstore", bucket, key, file: damage.file, recorded_bytes: damage.recorded, found_bytes: damage.found },
    `the object's bytes are gone (${what}); it is served as no such key`,
  );
}

/**
 * The object's record, or null when there is no such object. A record whose files are missing or
 * not at their recorded size is no object either (and logged): HEAD, GET and copies answer
 * NoSuchKey rather than promise bytes that cannot be read.
 */
export async function headObject(lay: Layout, bucket: string, key: string): Promise<ObjectRecord | null> {
  const state = await inspectObject(lay, bucket, key);
  if (!state) return null;
  if (state.damage) {
    warnDamaged(bucket, key, state.damage);
    return null;
  }
  return state.record;
}

export type OpenedObject = { record: ObjectRecord; stream: Readable; start: number; end: number };

/**
 * Streams an object's bytes (inclusive range) across its segments. Its files are pinned for the
 * life of the stream, so an overwrite or delete landing meanwhile cannot cut the read short.
 * A record whose files are gone or truncated opens as no object (null), like headObject.
 * `checked`: a record the caller has just had from headObject; when the pinned record is that
 * same commit its files were stat'ed already and are not again.
 */
export async function openObject(lay: Layout, bucket: string, key: string, range?: { start: number; end: number }, checked?: ObjectRecord): Promise<OpenedObject | null> {
  await requireBucket(lay, bucket);
  for (let attempt = 0; attempt < 5; attempt++) {
    const record = await readJson<ObjectRecord>(lay.objectRecord(bucket, key));
    if (!record) return null;
    const files = segmentPaths(lay, bucket, record);
    pin(files);
    // Still the current record once pinned: its files cannot be removed by this store from here on.
    const current = await readJson<ObjectRecord>(lay.objectRecord(bucket, key));
    if (!sameCommit(current, record)) {
      await unpin(files);
      continue;
    }
    // So a missing or short file found now was lost outside the store, not retired by a commit.
    let damage: Damage | null;
    try {
      damage = sameCommit(checked ?? null, record) ? null : await findDamage(lay, bucket, record);
    } catch (err) {
      await unpin(files);
      throw err;
    }
    if (damage) {
      await unpin(files);
      warnDamaged(bucket, key, damage);
      return null;
    }
    const start = range?.start ?? 0;
    const end = range?.end ?? record.size - 1;
    // The pins go when the stream closes, read to its end or destroyed unread (a generator that
    // never started runs no `finally`, so the stream's own close event is the one sure release).
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await unpin(files);
    };
    const stream = Readable.from(readSegments(record.segments, files, start, end, release), { objectMode: false });
    stream.once("close", () => {
      release().catch((err: unknown) => log().error({ component: "objectstore", bucket, key, err }, "could not remove a replaced object's file after its last read; it stays on disk"));
    });
    return { record, stream, start, end };
  }
  return null;
}

async function* readSegments(segments: Segment[], files: string[], start: number, end: number, release: () => Promise<void>): AsyncGenerator<Buffer> {
  try {
    let offset = 0;
    for (const [i, segment] of segments.entries()) {
      const from = Math.max(start, offset);
      const to = Math.min(end, offset + segment.size - 1);
      if (from <= to) {
        for await (const chunk of createReadStream(files[i], { start: from - offset, end: to - offset, highWaterMark: 1024 * 1024 })) yield chunk as Buffer;
      }
      offset += segment.size;
      if (offset > end) break;
    }
  } finally {
    await release();
  }
}

export async function deleteObject(lay: Layout, bucket: string, key: string): Promise<boolean> {
  await requireBucket(lay, bucket);
  return withLock(`object:${bucket}/${key}`, async () => {
    const recordPath = lay.objectRecord(bucket, key);
    const record = await readJson<ObjectRecord>(recordPath);
    if (!record) return false;
    // A backup in progress still archives the object its database snapshot may name (pins.ts).
    noteDeletedRecord(recordPath, record);
    await fs.rm(recordPath, { force: true });
    await syncDir(path.dirname(recordPath));
    await retire(segmentPaths(lay, bucket, record));
    return true;
  });
}

/** Every object of a bucket, sorted by key (UTF-8 byte order, as S3 lists). */
export async function listAllObjects(lay: Layout, bucket: string): Promise<ObjectRecord[]> {
  await requireBucket(lay, bucket);
  const out: ObjectRecord[] = [];
  const shards = await fs.readdir(lay.bucketDir(bucket), { withFileTypes: true });
  for (const shard of shards) {
    if (!shard.isDirectory()) continue;
    const dir = path.join(lay.bucketDir(bucket), shard.name);
    for (const name of await fs.readdir(dir)) {
      if (!name.endsWith(".json")) continue;
      const record = await readJson<ObjectRecord>(path.join(dir, name));
      if (record) out.push(record);
    }
  }
  return out.sort((a, b) => compareKeys(a.key, b.key));
}

/** S3 orders keys by their UTF-8 bytes. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

export async function createBucket(lay: Layout, bucket: string, now: Date): Promise<"created" | "exists"> {
  await fs.mkdir(lay.bucketDir(bucket), { recursive: true });
  try {
    const fh = await fs.open(lay.bucketMarker(bucket), "wx");
    await fh.writeFile(JSON.stringify({ created: now.toISOString() }));
    await fh.close();
    return "created";
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return "exists";
    throw err;
  }
}

export async function deleteBucket(lay: Layout, bucket: string): Promise<"deleted" | "not_empty"> {
  if ((await listAllObjects(lay, bucket)).length) return "not_empty";
  await fs.rm(lay.bucketDir(bucket), { recursive: true, force: true });
  return "deleted";
}

export async function listBuckets(lay: Layout): Promise<{ name: string; created: string }[]> {
  let names: string[];
  try {
    names = await fs.readdir(lay.root);
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
  const out: { name: string; created: string }[] = [];
  for (const name of names.filter((n) => !n.startsWith(".")).sort()) {
    const marker = await readJson<{ created: string }>(lay.bucketMarker(name));
    if (marker) out.push({ name, created: marker.created });
  }
  return out;
}
