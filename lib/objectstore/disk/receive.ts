import crypto from "node:crypto";
import fs, { type FileHandle } from "node:fs/promises";
import { Readable } from "node:stream";
import { startChecksum, type ChecksumAlgorithm } from "./checksum-algorithms";
import type { Layout } from "./layout";
import { openWorkerSink, type BodySink } from "./write-worker";

/** Why a request body could not be stored. Each protocol maps these to its own error answers. */
export class BodyError extends Error {
  constructor(
    readonly reason: "aborted" | "too_large" | "incomplete",
    message: string,
  ) {
    super(message);
    this.name = "BodyError";
  }
}

/** A request body (web stream; async-iterable at run time in Node) or any other byte source. */
export type Body = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null;

export function iterate(body: Exclude<Body, null>): AsyncIterable<Uint8Array> {
  return body as AsyncIterable<Uint8Array>;
}

/** `checksum`: the raw digest of the algorithm the caller asked for (x-amz-checksum-*), else null. */
export type Received = { path: string; size: number; md5: Buffer; sha256: string | null; checksum: Buffer | null };

/**
 * Thrown by a decoder between the request and the store (aws-chunked framing, chunk signatures):
 * a verdict on the body, answered as `answer`, never mistaken for the client going away.
 */
export class BodyRefused extends Error {
  constructor(readonly answer: Error) {
    super(answer.message);
    this.name = "BodyRefused";
  }
}

/** Bytes gathered before one write call: large enough to keep syscalls few, small enough to keep memory flat. */
const BATCH_BYTES = 1024 * 1024;

/**
 * Streams `body` into `fh` from `position`, feeding every stored byte to `hashes`. One write is in
 * flight while the next batch is received and hashed, so disk and network overlap; at most two
 * batches (2 MiB) are held per request whatever the body's size. The first `skip` bytes are
 * dropped (a resumed chunk repeating bytes already stored). Answers the bytes written and the
 * bytes read from the body (written plus skipped).
 */
export async function pumpBody(
  fh: FileHandle,
  position: number,
  body: Body,
  opts: { hashes: { update(chunk: Uint8Array): unknown }[]; maxBytes: number; skip?: number },
): Promise<{ written: number; consumed: number }> {
  let skip = opts.skip ?? 0;
  let skipped = 0;
  let written = 0;
  let batch: Uint8Array[] = [];
  let batchBytes = 0;
  let inFlight: Promise<void> | null = null;

  const writeAll = async (buffers: Uint8Array[], at: number) => {
    let offset = at;
    let rest = buffers;
    while (rest.length) {
      const { bytesWritten } = await fh.writev(rest, offset);
      offset += bytesWritten;
      rest = dropBytes(rest, bytesWritten);
    }
  };
  const flush = async () => {
    if (inFlight) await inFlight;
    inFlight = null;
    if (!batchBytes) return;
    inFlight = writeAll(batch, position + written);
    written += batchBytes;
    batch = [];
    batchBytes = 0;
  };

  try {
    if (body) {
      for await (const raw of iterate(body)) {
        let chunk = raw;
        if (skip > 0) {
          if (chunk.length <= skip) {
            skip -= chunk.length;
            skipped += chunk.length;
            continue;
          }
          chunk = chunk.subarray(skip);
          skipped += skip;
          skip = 0;
        }
        if (written + batchBytes + chunk.length > opts.maxBytes) {
          throw new BodyError("too_large", `the body is larger than ${opts.maxBytes} bytes`);
        }
        for (const h of opts.hashes) h.update(chunk);
        batch.push(chunk);
        batchBytes += chunk.length;
        if (batchBytes >= BATCH_BYTES) await flush();
      }
    }
    await flush();
    if (inFlight) await inFlight;
    return { written, consumed: written + skipped };
  } catch (err) {
    // Never leave a write running against a handle the caller is about to close.
    if (inFlight) await (inFlight as Promise<void>).catch(() => undefined);
    if (err instanceof BodyError) throw err;
    if (isStreamAbort(err)) throw new BodyError("aborted", "the client closed the connection before the body ended");
    throw err;
  }
}

function dropBytes(buffers: Uint8Array[], n: number): Uint8Array[] {
  let left = n;
  const out: Uint8Array[] = [];
  for (const b of buffers) {
    if (left >= b.length) {
      left -= b.length;
      continue;
    }
    out.push(left ? b.subarray(left) : b);
    left = 0;
  }
  return out;
}

/** File-system failures are ours (and rethrown); anything else thrown while reading the body is the client going away. */
function isStreamAbort(err: unknown): boolean {
  if (err instanceof BodyRefused) return false;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code && /^E[A-Z]+$/.test(code) && code !== "ECONNRESET" && code !== "EPIPE") return false;
  return true;
}

/**
 * pumpToSink for a Node stream, driven by its events: no promise per chunk, only when the sink is
 * full (then the stream pauses until it has room). In a process where AsyncLocalStorage is on (as
 * under Next.js) every promise also runs its hooks: through Easel this took the request thread
 * from 1.4–1.9 to 1.2–1.5 s of CPU per GiB uploaded (bench/upload). Leaving early (too large, a
 * failed write) destroys the stream, as leaving a loop over it would.
 */
function pumpNodeToSink(stream: Readable, sink: BodySink, maxBytes: number): Promise<void> {
  if (stream.readableEnded) return Promise.resolve();
  // A decoder in front of the request may have refused the body before this reads it.
  if (stream.errored) return Promise.reject(isStreamAbort(stream.errored) ? new BodyError("aborted", "the client closed the connection before the body ended") : stream.errored);
  if (stream.destroyed) return Promise.reject(new BodyError("aborted", "the client closed the connection before the body ended"));
  return new Promise<void>((resolve, reject) => {
    let total = 0;
    let settled = false;
    const settle = (err?: unknown) => {
      if (settled) return;
      settled = true;
      stream.off("data", onData);
      stream.off("end", onEnd);
      stream.off("error", onError);
      stream.off("close", onClose);
      if (err === undefined) resolve();
      else reject(err);
    };
    const fail = (err: unknown) => {
      settle(err);
      stream.destroy();
    };
    const onData = (chunk: Uint8Array) => {
      if (settled) return;
      total += chunk.length;
      if (total > maxBytes) return fail(new BodyError("too_large", `the body is larger than ${maxBytes} bytes`));
      let full: Promise<void> | void;
      try {
        full = sink.push(chunk);
      } catch (err) {
        return fail(err);
      }
      if (!full) return;
      stream.pause();
      full.then(() => {
        if (!settled) stream.resume();
      }, fail);
    };
    const onEnd = () => settle();
    const onError = (err: unknown) => settle(isStreamAbort(err) ? new BodyError("aborted", "the client closed the connection before the body ended") : err);
    const onClose = () => {
      if (!stream.readableEnded) settle(new BodyError("aborted", "the client closed the connection before the body ended"));
    };
    stream.on("data", onData);
    stream.on("end", onEnd);
    stream.on("error", onError);
    stream.on("close", onClose);
  });
}

/** Streams `body` into `sink`, at most `maxBytes` of it. */
async function pumpToSink(body: Body, sink: BodySink, maxBytes: number): Promise<void> {
  // A Node request read below its web stream (lib/http/request-body.ts).
  if (body instanceof Readable) return pumpNodeToSink(body, sink, maxBytes);
  let total = 0;
  try {
    if (body) {
      for await (const chunk of iterate(body)) {
        total += chunk.length;
        if (total > maxBytes) throw new BodyError("too_large", `the body is larger than ${maxBytes} bytes`);
        const full = sink.push(chunk);
        if (full) await full;
      }
    }
  } catch (err) {
    if (err instanceof BodyError) throw err;
    if (isStreamAbort(err)) throw new BodyError("aborted", "the client closed the connection before the body ended");
    throw err;
  }
}

/**
 * Receives a whole body into a new file under .tmp, computing its md5 (and sha256 when the request
 * declared one, and the `checksum` algorithm when one is asked for: nothing more) on the way,
 * flushed to disk before returning. On any failure the file is removed: a body that did not fully
 * arrive leaves nothing behind.
 *
 * The hashing and writing run on a write worker (write-worker.ts) while this thread reads the
 * body; `transfer` says the body's chunks are this caller's alone (a request's), so they move
 * there without a copy. Where no worker can run, both happen here.
 */
export async function receiveToTemp(
  lay: Layout,
  body: Body,
  opts: { maxBytes: number; expectedLength: number | null; sha256: boolean; checksum?: ChecksumAlgorithm | null; transfer?: boolean },
): Promise<Received> {
  await fs.mkdir(lay.tmpDir, { recursive: true });
  const file = lay.tmpFile();
  const fh = await fs.open(file, "wx");
  let open = true;
  let sink: BodySink | null = null;
  try {
    const max = opts.expectedLength ?? opts.maxBytes;
    if (opts.expectedLength !== null && opts.expectedLength > opts.maxBytes) {
      throw new BodyError("too_large", `the body is larger than ${opts.maxBytes} bytes`);
    }
    sink = openWorkerSink(fh.fd, { sha256: opts.sha256, checksum: opts.checksum, transfer: opts.transfer ?? false });
    let received: Omit<Received, "path">;
    if (sink) {
      await pumpToSink(body, sink, max);
      const done = await sink.finish();
      sink = null;
      received = { size: done.written, md5: done.md5, sha256: done.sha256, checksum: done.checksum };
    } else {
      const md5 = crypto.createHash("md5");
      const sha = opts.sha256 ? crypto.createHash("sha256") : null;
      const checksum = opts.checksum ? startChecksum(opts.checksum) : null;
      const hashes = [md5, ...(sha ? [sha] : []), ...(checksum ? [checksum] : [])];
      const { written: size } = await pumpBody(fh, 0, body, { hashes, maxBytes: max });
      received = { size, md5: md5.digest(), sha256: sha ? sha.digest("hex") : null, checksum: checksum ? await checksum.digest() : null };
    }
    if (opts.expectedLength !== null && received.size !== opts.expectedLength) {
      throw new BodyError("incomplete", `received ${received.size} of ${opts.expectedLength} bytes`);
    }
    // One flush per body, after its last write: the bytes are on disk before they count.
    await fh.datasync();
    open = false;
    await fh.close();
    return { path: file, ...received };
  } catch (err) {
    // The worker may still be writing to this descriptor: close it only once it has stopped.
    if (sink) await sink.discard();
    if (open) await fh.close().catch(() => undefined);
    await fs.rm(file, { force: true });
    throw err;
  }
}
