import { Worker } from "node:worker_threads";
import { crcLibraryPath, WORKER_CHECKSUM_SOURCE, type ChecksumAlgorithm } from "./checksum-algorithms";

/**
 * Threads that hash and write received bytes, so the thread serving requests only moves them.
 *
 * Hashing (md5, sha256 for signed payloads, and the one x-amz-checksum a request names) is the
 * largest per-byte cost of an upload, and the request thread also parses HTTP and runs every
 * request's JavaScript. Here a body's chunks are
 * gathered into batches of about 1 MiB and handed to a worker by transfer (no copy): it hashes and
 * writes them in order and acknowledges each batch. A body has at most two batches in flight
 * while the next gathers (slack for a worker that is slow to be scheduled on a busy machine), so
 * memory stays bounded whatever the body's size. Handing the chunks over also
 * takes their memory off the request thread's heap: its garbage collector, which walks the whole
 * application's heap, runs half as often during an upload.
 *
 * A worker writes to a descriptor the caller opened and closes: the caller waits for the worker's
 * answer to `end` (which follows every earlier batch, messages being ordered) before closing it, so
 * a write never lands on a closed, or reused, descriptor.
 */

// The worker's code, evaluated as a script so it needs no separate file in any bundle.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
${WORKER_CHECKSUM_SOURCE}
const crypto = require("node:crypto");
const fs = require("node:fs");
const bodies = new Map();
function writeAll(fd, chunks, position) {
  let rest = chunks;
  let at = position;
  while (rest.length) {
    let n = fs.writevSync(fd, rest, at);
    at += n;
    const left = [];
    for (const c of rest) {
      if (n >= c.length) { n -= c.length; continue; }
      left.push(n ? c.subarray(n) : c);
      n = 0;
    }
    rest = left;
  }
  return at;
}
parentPort.on("message", (m) => {
  if (m.type === "open") {
    const b = { fd: m.fd, position: 0, md5: crypto.createHash("md5"), sha256: m.sha256 ? crypto.createHash("sha256") : null, checksum: null, failed: false, error: null };
    try {
      if (m.checksum) b.checksum = startChecksum(m.checksum);
    } catch (err) {
      b.failed = true;
      b.error = String((err && err.message) || err);
    }
    bodies.set(m.id, b);
    return;
  }
  const b = bodies.get(m.id);
  if (m.type === "data") {
    if (!b || b.failed) {
      parentPort.postMessage({ type: "failed", id: m.id, message: (b && b.error) || "an earlier write of this body failed" });
      return;
    }
    try {
      for (const c of m.chunks) {
        b.md5.update(c);
        if (b.sha256) b.sha256.update(c);
        if (b.checksum) b.checksum.update(c);
      }
      b.position = writeAll(b.fd, m.chunks, b.position);
      parentPort.postMessage({ type: "ack", id: m.id });
    } catch (err) {
      b.failed = true;
      parentPort.postMessage({ type: "failed", id: m.id, code: err && err.code, message: String((err && err.message) || err) });
    }
  } else if (m.type === "end") {
    bodies.delete(m.id);
    if (!b || b.failed || m.discard) {
      parentPort.postMessage({ type: "ended", id: m.id });
      return;
    }
    const ended = { type: "ended", id: m.id, md5: b.md5.digest(), sha256: b.sha256 ? b.sha256.digest("hex") : null, checksum: null, written: b.position };
    if (!b.checksum) return parentPort.postMessage(ended);
    b.checksum.digest().then(
      (checksum) => parentPort.postMessage({ ...ended, checksum }),
      (err) => parentPort.postMessage({ type: "ended", id: m.id, error: String((err && err.message) || err) }),
    );
  }
});
`;

/** Bytes gathered before a batch is handed over: few messages and write calls, little memory. */
export const BATCH_BYTES = 1024 * 1024;
/** Batches a body may have handed over and not yet stored. */
const IN_FLIGHT = 2;

type Reply =
  | { type: "ack"; id: number }
  | { type: "failed"; id: number; code?: string; message: string }
  | { type: "ended"; id: number; md5?: Uint8Array; sha256?: string | null; checksum?: Uint8Array | null; written?: number; error?: string };

type Listener = (reply: Reply | { type: "died"; error: Error }) => void;
type WriteWorker = { worker: Worker; listeners: Map<number, Listener>; nextId: number; open: number };

const holder = globalThis as { __easelWriteWorkers?: (WriteWorker | null)[] };
/**
 * Two workers, each body on the least busy one. Hashing and writing a part costs more than reading
 * it off the socket (2.0 s against 1.3 s of CPU per GiB, bench/upload), so with one worker the
 * parts in flight queued behind it: two took a 1 GiB upload from 202–222 to 235–260 MB/s on two
 * cores. More would not help there (the digest worker and the request thread are busy too), and
 * each adds the chunks awaiting its garbage collector to the process's memory.
 */
const WORKERS = 2;

let crcLibraryFile: string | null | undefined;
const crcLibrary = () => (crcLibraryFile === undefined ? (crcLibraryFile = crcLibraryPath()) : crcLibraryFile);

function startWorker(index: number): WriteWorker | null {
  try {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { crcLibrary: crcLibrary() } });
    worker.unref(); // never keeps the process alive
    const state: WriteWorker = { worker, listeners: new Map(), nextId: 1, open: 0 };
    worker.on("message", (reply: Reply) => state.listeners.get(reply.id)?.(reply));
    const fail = (error: Error) => {
      const pool = holder.__easelWriteWorkers;
      if (pool?.[index] === state) pool[index] = null;
      for (const listener of state.listeners.values()) listener({ type: "died", error });
      state.listeners.clear();
    };
    worker.on("error", fail);
    worker.on("exit", () => fail(new Error("the write worker exited")));
    return state;
  } catch {
    return null;
  }
}

/** The least busy worker, started on first use (and again after one fails). */
function pickWorker(): WriteWorker | null {
  const pool = (holder.__easelWriteWorkers ??= []);
  let best: WriteWorker | null = null;
  for (let i = 0; i < WORKERS; i++) {
    pool[i] ??= startWorker(i);
    const w = pool[i];
    if (w && (!best || w.open < best.open)) best = w;
  }
  return best;
}

/** A failure the worker met writing: the file system's error, with its code (ENOSPC, EIO…). */
function fsError(reply: { code?: string; message: string }): Error {
  return Object.assign(new Error(reply.message), reply.code ? { code: reply.code } : {});
}

export type BodySink = {
  /** Takes a chunk, which from then on belongs to the sink; resolves once more may be pushed. */
  push(chunk: Uint8Array): Promise<void> | void;
  /** Writes what is left, waits for every write, then gives the digests and the bytes written. */
  finish(): Promise<{ md5: Buffer; sha256: string | null; checksum: Buffer | null; written: number }>;
  /** Stops after whatever is in flight; the descriptor may be closed once this resolves. */
  discard(): Promise<void>;
};

/** A chunk that alone owns all of its memory can move to another thread without a copy. */
const ownsItsBuffer = (c: Uint8Array) => c.buffer instanceof ArrayBuffer && c.byteOffset === 0 && c.byteLength === c.buffer.byteLength;

/**
 * A sink hashing and writing to `fd` from offset 0 on a worker, or null when no worker can run (the
 * caller then hashes and writes on its own thread). `transfer`: the pushed chunks are the caller's
 * alone (a request body's, read by nothing else), so they move to the worker as they are;
 * otherwise, and for chunks that share their memory, each batch is first copied.
 */
export function openWorkerSink(fd: number, opts: { sha256: boolean; checksum?: ChecksumAlgorithm | null; transfer: boolean }): BodySink | null {
  // A CRC the workers could not load is computed by the caller instead.
  if (opts.checksum?.startsWith("crc") && !crcLibrary()) return null;
  const w = pickWorker();
  if (!w) return null;
  const id = w.nextId++;
  w.open++;
  let failure: Error | null = null;
  let closed = false;
  let batch: Uint8Array[] = [];
  let batchBytes = 0;
  // Batches handed over and not yet stored, oldest first; each settles with its acknowledgement.
  type Pending = { done: Promise<void>; settle: { resolve: () => void; reject: (err: Error) => void } };
  const inFlight: Pending[] = [];
  let ended: { resolve: (r: Extract<Reply, { type: "ended" }>) => void; reject: (err: Error) => void } | null = null;

  const close = () => {
    if (closed) return;
    closed = true;
    w.open--;
    w.listeners.delete(id);
  };

  w.listeners.set(id, (reply) => {
    if (reply.type === "ack") {
      inFlight.shift()?.settle.resolve();
    } else if (reply.type === "ended") {
      close();
      ended?.resolve(reply);
    } else {
      // A write failed, or the worker died: nothing more is written for this body.
      failure ??= reply.type === "died" ? reply.error : fsError(reply);
      for (const p of inFlight.splice(0)) p.settle.reject(failure);
      if (reply.type === "died") {
        close();
        ended?.reject(failure);
      }
    }
  });
  w.worker.postMessage({ type: "open", id, fd, sha256: opts.sha256, checksum: opts.checksum ?? null });

  /** Hands the gathered batch over once the previous one is stored. */
  const send = async () => {
    let chunks = batch;
    const bytes = batchBytes;
    batch = [];
    batchBytes = 0;
    if (!(opts.transfer && chunks.every(ownsItsBuffer))) {
      // One copy of our own: never detach memory someone else may still read.
      const copy = new Uint8Array(bytes);
      let at = 0;
      for (const c of chunks) {
        copy.set(c, at);
        at += c.length;
      }
      chunks = [copy];
    }
    while (inFlight.length >= IN_FLIGHT) await inFlight[0].done;
    if (failure) throw failure;
    let settle!: { resolve: () => void; reject: (err: Error) => void };
    const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    done.catch(() => undefined); // observed by a later send, finish or discard
    inFlight.push({ done, settle });
    w.worker.postMessage({ type: "data", id, chunks }, chunks.map((c) => c.buffer as ArrayBuffer));
  };

  const end = (discard: boolean) =>
    new Promise<Extract<Reply, { type: "ended" }>>((resolve, reject) => {
      if (closed) return reject(failure ?? new Error("the write worker stopped"));
      ended = { resolve, reject };
      w.worker.postMessage({ type: "end", id, discard });
    });

  return {
    push(chunk) {
      if (failure) throw failure;
      if (!chunk.length) return;
      batch.push(chunk);
      batchBytes += chunk.length;
      if (batchBytes >= BATCH_BYTES) return send();
    },
    async finish() {
      if (batchBytes) await send();
      while (inFlight.length) await inFlight[inFlight.length - 1].done;
      if (failure) throw failure;
      const r = await end(false);
      if (r.error) throw new Error(r.error);
      const md5 = r.md5 as Uint8Array;
      const checksum = r.checksum ? Buffer.from(r.checksum.buffer, r.checksum.byteOffset, r.checksum.byteLength) : null;
      return { md5: Buffer.from(md5.buffer, md5.byteOffset, md5.byteLength), sha256: r.sha256 ?? null, checksum, written: r.written ?? 0 };
    },
    async discard() {
      await Promise.all(inFlight.map((p) => p.done.catch(() => undefined)));
      await end(true).catch(() => undefined);
    },
  };
}
