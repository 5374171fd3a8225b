import fs from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import tar from "tar-stream";
import type { Hold } from "../objectstore/disk/holds";
import { ArchiveDigest } from "./archive-digest";
import { MANIFEST_ENTRY, signedTrailerText, TRAILER_ENTRY, type Manifest, type Trailer } from "./format";
import { signTrailer, type BackupKey } from "./signing-key";
import { walkObjects, type FileToArchive } from "./walk-objects";

export type PackProgress = { bytes: number; objects: number };

/** The tar being written, and the digest of every entry written so far. */
type Out = { pack: tar.Pack; digest: ArchiveDigest };

/** Big enough that per-chunk costs vanish, small enough to keep the process's memory flat. */
const READ_CHUNK = 512 * 1024;

/**
 * Streams the archive (format.ts): manifest, the database snapshot, every object, trailer. The
 * stream is pulled: files are read only as fast as the consumer takes the bytes, so memory stays
 * flat whatever the data dir's size. The trailer carries the digest of every entry before it,
 * signed with `key` (format.ts). `trailer` settles when the last entry is written (or with
 * the error that stopped the archive; the stream is destroyed with it).
 */
export function packArchive(input: { manifest: Manifest; pgDir: string; objectsRoot: string; hold: Hold; key: BackupKey; onProgress?: (p: PackProgress) => void }): {
  stream: Readable;
  trailer: Promise<Trailer>;
} {
  const pack = tar.pack();
  const out: Out = { pack, digest: new ArchiveDigest() };
  const progress: PackProgress = { bytes: 0, objects: 0 };
  const counted = (n: number) => {
    progress.bytes += n;
    input.onProgress?.(progress);
  };
  const trailer = (async (): Promise<Trailer> => {
    await addEntry(out, { name: MANIFEST_ENTRY, mode: 0o600 }, json(input.manifest));
    await addTree(out, input.pgDir, "pg", counted);
    const done: Trailer = { objects: 0, object_bytes: 0, damaged: [] };
    for await (const item of walkObjects(input.objectsRoot, input.hold)) {
      if (item.kind === "bucket") {
        await addFile(out, item.marker, counted);
        continue;
      }
      if (!(await segmentsIntact(item.segments))) {
        // A data file missing or cut short in the data dir itself (storage verify names these).
        done.damaged.push(`${item.bucket}/${item.record.key}`);
        continue;
      }
      await addEntry(out, { name: item.recordName, mode: 0o600, mtime: new Date(item.record.lastModified) }, json(item.record));
      for (const segment of item.segments) await addSegment(out, segment, counted);
      done.objects++;
      done.object_bytes += item.record.size;
      progress.objects = done.objects;
    }
    done.digest = out.digest.hex();
    done.signature = signTrailer(input.key, signedTrailerText(done));
    // The trailer itself is not part of the digest: it is the entry that carries it.
    await addEntry({ pack, digest: new ArchiveDigest() }, { name: TRAILER_ENTRY, mode: 0o600 }, json(done));
    pack.finalize();
    return done;
  })();
  trailer.catch((err: Error) => pack.destroy(err));
  // A Node stream over tar-stream's own (streamx) one, pulled chunk by chunk; destroying it stops the pack.
  return { stream: Readable.from(pack, { objectMode: false, highWaterMark: READ_CHUNK }), trailer };
}

const json = (value: unknown) => Buffer.from(`${JSON.stringify(value)}\n`);

/**
 * Whether every data file of an object is there with at least its recorded size. Checked before
 * the record is archived (a tar entry's size is fixed in its header); the hold keeps the files
 * from going away afterwards, and the store never changes a data file once written. Checked by
 * name, not by opening them all: an object of thousands of parts would hold thousands of files open.
 */
async function segmentsIntact(segments: FileToArchive[]): Promise<boolean> {
  for (const s of segments) {
    try {
      if ((await fs.stat(s.abs)).size < s.size) return false;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw err;
    }
  }
  return true;
}

async function addSegment(out: Out, segment: FileToArchive, counted: (n: number) => void) {
  const fh = await fs.open(segment.abs, "r");
  try {
    await addEntry(out, { name: segment.name, mode: 0o600, size: segment.size }, chunks(fh, segment.size, counted));
  } finally {
    await fh.close();
  }
}

async function* chunks(fh: fs.FileHandle, size: number, counted: (n: number) => void): AsyncGenerator<Buffer> {
  if (size === 0) return;
  for await (const chunk of fh.createReadStream({ start: 0, end: size - 1, highWaterMark: READ_CHUNK, autoClose: false })) {
    counted((chunk as Buffer).length);
    yield chunk as Buffer;
  }
}

async function addFile(out: Out, file: FileToArchive, counted: (n: number) => void) {
  const fh = await fs.open(file.abs, "r");
  try {
    const size = (await fh.stat()).size;
    await addEntry(out, { name: file.name, mode: 0o600, size }, chunks(fh, size, counted));
  } finally {
    await fh.close();
  }
}

/**
 * A directory tree (the database snapshot) under `prefix`, folders included (PostgreSQL needs its
 * empty ones). Most of its files are small: they are read a few at a time ahead of the archive
 * (each read waits on the disk thread pool; one at a time, a fresh cluster's ~1,000 files took
 * most of a second), the bigger ones streamed.
 */
async function addTree(out: Out, dir: string, prefix: string, counted: (n: number) => void) {
  const entries = await listTree(dir, prefix);
  const READ_AHEAD = 16;
  const reads: (Promise<Buffer | null> | null)[] = entries.map(() => null);
  const readAt = (i: number) => {
    const e = entries[i];
    if (!e || reads[i] || e.kind !== "file") return;
    reads[i] = smallFile(e.abs);
    // Awaited in its turn, which reports a failure; until then it must not count as unhandled.
    reads[i]!.catch(() => undefined);
  };
  for (let i = 0; i < entries.length; i++) {
    for (let j = i; j < i + READ_AHEAD; j++) readAt(j);
    const e = entries[i];
    if (e.kind === "dir") {
      await addEntry(out, { name: `${e.name}/`, type: "directory", mode: 0o700 });
      continue;
    }
    const bytes = await reads[i];
    reads[i] = null;
    if (bytes) {
      await addEntry(out, { name: e.name, mode: 0o600 }, bytes);
      counted(bytes.length);
    } else await addFile(out, { abs: e.abs, name: e.name, size: 0 }, counted);
  }
}

type TreeEntry = { kind: "dir" | "file"; abs: string; name: string };

async function listTree(dir: string, name: string): Promise<TreeEntry[]> {
  const out: TreeEntry[] = [{ kind: "dir", abs: dir, name }];
  for (const entry of (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const abs = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listTree(abs, `${name}/${entry.name}`)));
    else if (entry.isFile()) out.push({ kind: "file", abs, name: `${name}/${entry.name}` });
    else throw new Error(`the database snapshot holds ${abs}, which is neither a file nor a folder`);
  }
  return out;
}

/** A file's bytes if it is small (null: stream it); the snapshot's files do not change. */
async function smallFile(abs: string): Promise<Buffer | null> {
  const fh = await fs.open(abs, "r");
  try {
    const { size } = await fh.stat();
    if (size > READ_CHUNK) return null;
    const bytes = Buffer.alloc(size);
    const { bytesRead } = await fh.read(bytes, 0, size, 0);
    if (bytesRead !== size) throw new Error(`${abs} changed while it was archived`);
    return bytes;
  } finally {
    await fh.close();
  }
}

/**
 * Adds one entry and resolves when tar-stream has taken all of it. The body is written with
 * backpressure: a chunk waits while the archive's consumer is behind. Its header and bytes go into
 * the digest as they are written.
 */
function addEntry({ pack, digest }: Out, header: Partial<tar.Header> & { name: string }, body?: Buffer | AsyncIterable<Buffer>): Promise<void> {
  digest.entry(header.name, header.type ?? "file", Buffer.isBuffer(body) ? body.length : (header.size ?? 0));
  return new Promise<void>((resolve, reject) => {
    const done = (err?: Error | null) => (err ? reject(err) : resolve());
    if (!body) {
      pack.entry(header, done);
      return;
    }
    if (Buffer.isBuffer(body)) {
      digest.update(body);
      pack.entry({ ...header, size: body.length }, body, done);
      return;
    }
    const sink = pack.entry(header, done);
    void (async () => {
      for await (const chunk of body) {
        digest.update(chunk);
        if (!sink.write(chunk)) {
          await new Promise<void>((go) => {
            const on = () => {
              sink.off("drain", on);
              sink.off("close", on);
              go();
            };
            sink.on("drain", on);
            sink.on("close", on);
          });
        }
        if (sink.destroyed) throw new Error("the archive stream was closed");
      }
      sink.end(undefined);
    })().catch((err: Error) => {
      sink.destroy(err);
      reject(err);
    });
  });
}
