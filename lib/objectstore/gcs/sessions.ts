import crypto, { type Hash } from "node:crypto";
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { countUploadBytes } from "../../metrics/registry.mjs";
import { readJson, writeJsonAtomic } from "../disk/atomic";
import { isValidId, randomId, type Layout } from "../disk/layout";
import { withLock } from "../disk/lock";
import { bucketExists, commitObject, NoSuchBucketError, type CommitMode, type ObjectRecord, type StoredHeaders, type WriteCondition } from "../disk/objects";
import { BodyError, pumpBody, type Body } from "../disk/receive";
import { gcsErrors } from "./errors";

/** Every chunk but the last must end on a multiple of this (GCS's rule). */
export const CHUNK_GRANULARITY = 256 * 1024;
/** GCS's object size limit. */
export const MAX_OBJECT_BYTES = 5 * 1024 ** 4;
/** GCS keeps an unfinished session for a week. */
const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

export type SessionRecord = {
  id: string;
  bucket: string;
  key: string;
  contentType: string;
  headers: StoredHeaders;
  userMetadata: Record<string, string>;
  created: string;
  /** Bytes stored and flushed to disk; what a status query reports. */
  committed: number;
  /** Total size once a request has declared it. */
  total: number | null;
  finished: { size: number; md5: string; etag: string } | null;
  /** How the last byte commits the object: absent (sessions opened before this field), create-only. */
  commit?: CommitMode;
  /** The precondition the session was opened with (`x-goog-if-generation-match: 0`), judged at the commit. */
  condition?: WriteCondition;
};

export type ChunkRange = { start: number; end: number | null; total: number | null };
export type ChunkOutcome = { done: false; committed: number } | { done: true; object: Pick<ObjectRecord, "size" | "md5" | "etag"> };

const recordPath = (lay: Layout, id: string) => path.join(lay.sessionDir(id), "session.json");
const dataPath = (lay: Layout, id: string) => path.join(lay.sessionDir(id), "data");

/**
 * Running md5 of each session's stored bytes, so a chunked upload is hashed once, as it streams.
 * After a restart (or a failed chunk) the digest is rebuilt from the bytes on disk.
 */
const running = ((globalThis as { __easelSessionHashes?: Map<string, { hash: Hash; offset: number }> }).__easelSessionHashes ??= new Map());

export async function createSession(
  lay: Layout,
  init: Pick<SessionRecord, "bucket" | "key" | "contentType" | "headers" | "userMetadata" | "total" | "commit" | "condition">,
  now: Date,
): Promise<SessionRecord> {
  if (!(await bucketExists(lay, init.bucket))) throw new NoSuchBucketError(init.bucket);
  const session: SessionRecord = { ...init, id: randomId(), created: now.toISOString(), committed: 0, finished: null };
  await fs.mkdir(lay.sessionDir(session.id), { recursive: true });
  await writeJsonAtomic(lay, recordPath(lay, session.id), session);
  return session;
}

/** The session, if it exists, belongs to this object and has not expired. */
export async function getSession(lay: Layout, id: string, target: { bucket: string; key: string }, now: Date): Promise<SessionRecord | null> {
  if (!isValidId(id)) return null;
  const session = await readJson<SessionRecord>(recordPath(lay, id));
  if (!session || session.bucket !== target.bucket || session.key !== target.key) return null;
  if (now.getTime() - Date.parse(session.created) > SESSION_TTL_MS) {
    await cancelSession(lay, id);
    return null;
  }
  return session;
}

export async function cancelSession(lay: Layout, id: string): Promise<void> {
  await withLock(`session:${id}`, async () => {
    running.delete(id);
    await fs.rm(lay.sessionDir(id), { recursive: true, force: true });
  });
}

/**
 * Stores one chunk. Bytes the session already has are skipped (a client resending after a lost
 * answer), a chunk that starts beyond them is refused, and a chunk that does not fully arrive is
 * cut back off: the committed size only ever moves forward by whole chunks. When the last byte of
 * the declared total is stored, the bytes become the object (atomically, with their md5).
 */
export async function writeChunk(lay: Layout, id: string, body: Body, range: ChunkRange | "whole", now: Date): Promise<ChunkOutcome> {
  return withLock(`session:${id}`, async () => {
    const session = await readJson<SessionRecord>(recordPath(lay, id));
    if (!session) throw gcsErrors.noSuchUpload();
    if (session.finished) return { done: true, object: session.finished };
    // A PUT without Content-Range sends the whole object: it starts over.
    const r: ChunkRange = range === "whole" ? { start: 0, end: null, total: null } : range;
    const committed = range === "whole" ? 0 : session.committed;
    const total = r.total ?? session.total;
    if (session.total !== null && r.total !== null && r.total !== session.total) {
      throw gcsErrors.invalidArgument(`The total size ${r.total} differs from the ${session.total} declared earlier.`);
    }
    if (r.start > committed) {
      throw gcsErrors.invalidArgument(`The chunk starts at byte ${r.start} but only ${committed} bytes are stored; resume from byte ${committed}.`);
    }
    const skip = committed - r.start;
    const declared = r.end === null ? null : r.end - r.start + 1;
    const fh = await fs.open(dataPath(lay, id), committed === 0 ? "w" : "r+");
    const hash = await hashUpTo(lay, id, committed);
    let stored: number;
    try {
      const room = (total ?? MAX_OBJECT_BYTES) - committed;
      const pumped = await pumpBody(fh, committed, body, { hashes: [hash], maxBytes: declared === null ? room : Math.max(0, declared - skip), skip });
      stored = pumped.written;
      const received = pumped.consumed;
      countUploadBytes(received);
      if (declared !== null && received < declared) throw new BodyError("incomplete", `received ${received} of the ${declared} bytes in Content-Range`);
      const end = committed + stored;
      if (range === "whole" && session.total !== null && end !== session.total) {
        throw gcsErrors.invalidArgument(`The session was opened for ${session.total} bytes; this upload has ${end}.`);
      }
      const last = range === "whole" || (total !== null && end === total);
      if (!last && end % CHUNK_GRANULARITY !== 0) {
        throw gcsErrors.invalidArgument(`Every chunk but the last must end on a multiple of ${CHUNK_GRANULARITY} bytes; this one ends at byte ${end}.`);
      }
      await fh.datasync();
    } catch (err) {
      await fh.truncate(committed).catch(() => undefined);
      await fh.close();
      throw err;
    }
    await fh.close();
    const size = committed + stored;
    running.set(id, { hash, offset: size });
    if (range === "whole" || (total !== null && size === total)) {
      try {
        return await finish(lay, session, size, now);
      } catch (err) {
        // Refused at the commit (another object at the name): the session holds what it held before this chunk.
        running.delete(id);
        await fs.truncate(dataPath(lay, id), committed);
        throw err;
      }
    }
    await writeJsonAtomic(lay, recordPath(lay, id), { ...session, committed: size, total } satisfies SessionRecord);
    return { done: false, committed: size };
  });
}

/** Status query (`Content-Range: bytes *\/N`): reports progress, and finishes a session whose declared total has all arrived. */
export async function querySession(lay: Layout, id: string, total: number | null, now: Date): Promise<ChunkOutcome> {
  return withLock(`session:${id}`, async () => {
    const session = await readJson<SessionRecord>(recordPath(lay, id));
    if (!session) throw gcsErrors.noSuchUpload();
    if (session.finished) return { done: true, object: session.finished };
    if (total !== null && total === session.committed) {
      if (session.committed === 0) await fs.writeFile(dataPath(lay, id), "");
      return finish(lay, session, session.committed, now);
    }
    return { done: false, committed: session.committed };
  });
}

/**
 * Makes the session's bytes the object. Sessions are opened through signed URLs, so on Easel's
 * own store the object is created, never replaced: other bytes at the name refuse the commit
 * (ObjectExistsError), the same bytes count as this upload done before. A session opened with
 * `x-goog-if-generation-match: 0` is refused (412) whenever the name is taken, as on GCS.
 */
async function finish(lay: Layout, session: SessionRecord, size: number, now: Date): Promise<ChunkOutcome> {
  const hash = await hashUpTo(lay, session.id, size);
  const md5 = hash.digest("hex");
  const object = await commitObject(
    lay,
    session.bucket,
    session.key,
    [{ path: dataPath(lay, session.id), size }],
    { size, md5, etag: md5, contentType: session.contentType, headers: session.headers, userMetadata: session.userMetadata },
    now,
    session.commit ?? "create-only",
    session.condition,
  );
  running.delete(session.id);
  const finished = { size: object.size, md5: object.md5, etag: object.etag };
  await writeJsonAtomic(lay, recordPath(lay, session.id), { ...session, committed: size, total: size, finished } satisfies SessionRecord);
  return { done: true, object: finished };
}

/** A copy of the running digest at `offset`, rebuilt from disk when the cached one is missing or elsewhere. */
async function hashUpTo(lay: Layout, id: string, offset: number): Promise<Hash> {
  const cached = running.get(id);
  if (cached && cached.offset === offset) return cached.hash.copy();
  const hash = crypto.createHash("md5");
  if (offset > 0) {
    for await (const chunk of createReadStream(dataPath(lay, id), { start: 0, end: offset - 1, highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  }
  running.set(id, { hash: hash.copy(), offset });
  return hash;
}
