import crypto from "node:crypto";
import { createReadStream } from "node:fs";
import { Worker } from "node:worker_threads";
import { crcLibraryPath, startChecksum, WORKER_CHECKSUM_SOURCE, type ChecksumAlgorithm } from "./checksum-algorithms";

/**
 * The md5 of a multipart object is the md5 of its parts in order; it cannot be combined from the
 * parts' own digests. Rather than reading every part again when the upload completes, a worker
 * thread keeps a running digest per upload that follows the parts in order as they are committed
 * (part 1, then 2, …), reading each from the page cache while the client is still sending later
 * parts — on another core than the one receiving them. At completion only what is not yet digested
 * is read. The state is in memory: after a restart, when a completion names other parts than those
 * digested, or if the worker fails, the digest is computed afresh.
 *
 * An upload with a FULL_OBJECT checksum (a CRC of the whole object) has that CRC follow the parts in
 * the same read. A CRC cannot be copied as md5 can, so a completion uses up the running state: a
 * completion that then fails (another object at the key) and is sent again reads the parts afresh.
 */

// The worker's code, evaluated as a script so it needs no separate file in any bundle.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const crypto = require("node:crypto");
const fs = require("node:fs");
${WORKER_CHECKSUM_SOURCE}
const uploads = new Map();
const buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
function digestFile(hashes, file) {
  const fd = fs.openSync(file, "r");
  try {
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) return;
      for (const hash of hashes) if (hash) hash.update(buffer.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
}
function advance(p) {
  for (;;) {
    const file = p.committed.get(p.digested.length + 1);
    if (!file) return;
    digestFile([p.hash, p.sum], file);
    p.digested.push(file);
  }
}
const fresh = (checksum, committed) => ({ hash: crypto.createHash("md5"), checksum, sum: checksum ? startChecksum(checksum) : null, digested: [], committed });
async function whole(m) {
  const p = uploads.get(m.uploadId);
  let state = fresh(m.checksum, null);
  if (p && p.checksum === m.checksum && p.digested.length <= m.files.length && p.digested.every((f, i) => m.files[i] === f)) {
    // md5 continues on a copy; a CRC has no copy, so the running state is used up (and dropped).
    state = { ...p, hash: p.hash.copy() };
    if (p.sum) uploads.delete(m.uploadId);
  }
  for (const f of m.files.slice(state.digested.length)) digestFile([state.hash, state.sum], f);
  return { md5: state.hash.digest("hex"), checksum: state.sum ? await state.sum.digest() : null };
}
parentPort.on("message", (m) => {
  try {
    if (m.type === "part") {
      let p = uploads.get(m.uploadId);
      if (!p || m.partNumber <= p.digested.length || p.checksum !== m.checksum) {
        p = fresh(m.checksum, p ? p.committed : new Map());
        uploads.set(m.uploadId, p);
      }
      p.committed.set(m.partNumber, m.file);
      advance(p);
    } else if (m.type === "whole") {
      whole(m).then(
        (r) => parentPort.postMessage({ id: m.id, ...r }),
        (err) => {
          uploads.delete(m.uploadId);
          parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) });
        },
      );
    } else if (m.type === "forget") {
      uploads.delete(m.uploadId);
    }
  } catch (err) {
    uploads.delete(m.uploadId);
    if (m.type === "whole") parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) });
  }
});
`;

export type WholeDigest = { md5: string; checksum: Buffer | null };
type Pending = { resolve: (digest: WholeDigest) => void; reject: (err: Error) => void };
type DigestWorker = { worker: Worker; pending: Map<number, Pending>; nextId: number };

const holder = globalThis as { __easelDigestWorker?: DigestWorker | null };

function digestWorker(): DigestWorker | null {
  if (holder.__easelDigestWorker) return holder.__easelDigestWorker;
  try {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { crcLibrary: crcLibraryPath() } });
    worker.unref(); // never keeps the process alive
    const state: DigestWorker = { worker, pending: new Map(), nextId: 1 };
    worker.on("message", (m: { id: number; md5?: string; checksum?: Uint8Array | null; error?: string }) => {
      const waiting = state.pending.get(m.id);
      state.pending.delete(m.id);
      if (m.md5) waiting?.resolve({ md5: m.md5, checksum: m.checksum ? Buffer.from(m.checksum.buffer, m.checksum.byteOffset, m.checksum.byteLength) : null });
      else waiting?.reject(new Error(m.error ?? "digest failed"));
    });
    const fail = (err: Error) => {
      if (holder.__easelDigestWorker === state) holder.__easelDigestWorker = null;
      for (const waiting of state.pending.values()) waiting.reject(err);
      state.pending.clear();
    };
    worker.on("error", fail);
    worker.on("exit", () => fail(new Error("digest worker exited")));
    holder.__easelDigestWorker = state;
    return state;
  } catch {
    return null;
  }
}

/**
 * A part was committed (or replaced): the worker digests, in order, whatever is now next.
 * `checksum`: the upload's full-object CRC, which follows the parts with the md5.
 */
export function notePartCommitted(uploadId: string, partNumber: number, file: string, checksum: ChecksumAlgorithm | null = null): void {
  digestWorker()?.worker.postMessage({ type: "part", uploadId, partNumber, file, checksum });
}

/**
 * The md5 (hex) of `files` concatenated, and their `checksum` when asked for, using what the
 * upload's running digest already covers.
 */
export async function wholeDigest(uploadId: string, files: { path: string }[], checksum: ChecksumAlgorithm | null = null): Promise<WholeDigest> {
  const w = digestWorker();
  if (w) {
    try {
      return await new Promise<WholeDigest>((resolve, reject) => {
        const id = w.nextId++;
        w.pending.set(id, { resolve, reject });
        w.worker.postMessage({ type: "whole", id, uploadId, files: files.map((f) => f.path), checksum });
      });
    } catch {
      // Fall through: digest here.
    }
  }
  const hash = crypto.createHash("md5");
  const sum = checksum ? startChecksum(checksum) : null;
  for (const f of files) {
    for await (const chunk of createReadStream(f.path, { highWaterMark: 1024 * 1024 })) {
      hash.update(chunk as Buffer);
      sum?.update(chunk as Buffer);
    }
  }
  return { md5: hash.digest("hex"), checksum: sum ? await sum.digest() : null };
}


export function forgetUpload(uploadId: string): void {
  holder.__easelDigestWorker?.worker.postMessage({ type: "forget", uploadId });
}
