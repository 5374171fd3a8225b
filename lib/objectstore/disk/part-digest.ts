import crypto from "node:crypto";
import { createReadStream } from "node:fs";
import { Worker } from "node:worker_threads";

/**
 * The md5 of a multipart object is the md5 of its parts in order; it cannot be combined from the
 * parts' own digests. Rather than reading every part again when the upload completes, a worker
 * thread keeps a running digest per upload that follows the parts in order as they are committed
 * (part 1, then 2, …), reading each from the page cache while the client is still sending later
 * parts — on another core than the one receiving them. At completion only what is not yet digested
 * is read. The state is in memory: after a restart, when a completion names other parts than those
 * digested, or if the worker fails, the digest is computed afresh.
 */

// The worker's code, evaluated as a script so it needs no separate file in any bundle.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const crypto = require("node:crypto");
const fs = require("node:fs");
const uploads = new Map();
const buffer = Buffer.allocUnsafe(4 * 1024 * 1024);
function digestFile(hash, file) {
  const fd = fs.openSync(file, "r");
  try {
    for (;;) {
      const n = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (n === 0) return;
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
}
function advance(p) {
  for (;;) {
    const file = p.committed.get(p.digested.length + 1);
    if (!file) return;
    digestFile(p.hash, file);
    p.digested.push(file);
  }
}
parentPort.on("message", (m) => {
  try {
    if (m.type === "part") {
      let p = uploads.get(m.uploadId);
      if (!p || m.partNumber <= p.digested.length) {
        p = { hash: crypto.createHash("md5"), digested: [], committed: p ? p.committed : new Map() };
        uploads.set(m.uploadId, p);
      }
      p.committed.set(m.partNumber, m.file);
      advance(p);
    } else if (m.type === "whole") {
      const p = uploads.get(m.uploadId);
      let hash = crypto.createHash("md5");
      let from = 0;
      if (p && p.digested.length <= m.files.length && p.digested.every((f, i) => m.files[i] === f)) {
        hash = p.hash.copy();
        from = p.digested.length;
      }
      for (const f of m.files.slice(from)) digestFile(hash, f);
      parentPort.postMessage({ id: m.id, md5: hash.digest("hex") });
    } else if (m.type === "forget") {
      uploads.delete(m.uploadId);
    }
  } catch (err) {
    uploads.delete(m.uploadId);
    if (m.type === "whole") parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) });
  }
});
`;

type Pending = { resolve: (md5: string) => void; reject: (err: Error) => void };
type DigestWorker = { worker: Worker; pending: Map<number, Pending>; nextId: number };

const holder = globalThis as { __easelDigestWorker?: DigestWorker | null };

function digestWorker(): DigestWorker | null {
  if (holder.__easelDigestWorker) return holder.__easelDigestWorker;
  try {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref(); // never keeps the process alive
    const state: DigestWorker = { worker, pending: new Map(), nextId: 1 };
    worker.on("message", (m: { id: number; md5?: string; error?: string }) => {
      const waiting = state.pending.get(m.id);
      state.pending.delete(m.id);
      if (m.md5) waiting?.resolve(m.md5);
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

/** A part was committed (or replaced): the worker digests, in order, whatever is now next. */
export function notePartCommitted(uploadId: string, partNumber: number, file: string): void {
  digestWorker()?.worker.postMessage({ type: "part", uploadId, partNumber, file });
}

/** The md5 (hex) of `files` concatenated, using what the upload's running digest already covers. */
export async function wholeMd5(uploadId: string, files: { path: string }[]): Promise<string> {
  const w = digestWorker();
  if (w) {
    try {
      return await new Promise<string>((resolve, reject) => {
        const id = w.nextId++;
        w.pending.set(id, { resolve, reject });
        w.worker.postMessage({ type: "whole", id, uploadId, files: files.map((f) => f.path) });
      });
    } catch {
      // Fall through: digest here.
    }
  }
  const hash = crypto.createHash("md5");
  for (const f of files) {
    for await (const chunk of createReadStream(f.path, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  }
  return hash.digest("hex");
}

export function forgetUpload(uploadId: string): void {
  holder.__easelDigestWorker?.worker.postMessage({ type: "forget", uploadId });
}
