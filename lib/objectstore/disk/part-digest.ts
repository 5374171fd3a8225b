import crypto, { type Hash } from "node:crypto";
import { createReadStream } from "node:fs";

/**
 * The md5 of a multipart object is the md5 of its parts in order, which cannot be combined from
 * the parts' own digests. Rather than reading every part again when the upload completes, each
 * upload keeps a running digest that follows its parts in order as they are committed (part 1,
 * then 2, …), reading each from the page cache while the client is still sending later parts. At
 * completion only the parts not yet digested are read. The state is in memory: after a restart,
 * or when a completion names other parts than those digested, the digest is computed afresh.
 */
type Progress = {
  hash: Hash;
  /** Files digested so far, in part order. */
  digested: string[];
  /** Committed part files by part number, waiting for their turn. */
  committed: Map<number, string>;
  running: Promise<void> | null;
};

const uploads: Map<string, Progress> = ((globalThis as { __easelPartDigests?: Map<string, Progress> }).__easelPartDigests ??= new Map());

async function digestFile(hash: Hash, file: string): Promise<void> {
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
}

/** A part was committed (or replaced): digest, in the background, whatever is now next in order. */
export function notePartCommitted(uploadId: string, partNumber: number, file: string): void {
  let p = uploads.get(uploadId);
  if (!p || partNumber <= p.digested.length) {
    // A part already digested was replaced: start over.
    const committed = p?.committed ?? new Map<number, string>();
    p = { hash: crypto.createHash("md5"), digested: [], committed, running: null };
    uploads.set(uploadId, p);
  }
  p.committed.set(partNumber, file);
  advance(uploadId, p);
}

function advance(uploadId: string, p: Progress): void {
  if (p.running) return;
  p.running = (async () => {
    for (;;) {
      const file = p.committed.get(p.digested.length + 1);
      if (!file || uploads.get(uploadId) !== p) return;
      await digestFile(p.hash, file);
      p.digested.push(file);
    }
  })()
    .catch(() => {
      if (uploads.get(uploadId) === p) uploads.delete(uploadId);
    })
    .finally(() => {
      p.running = null;
      // A part may have arrived while the loop was finishing.
      if (uploads.get(uploadId) === p && p.committed.has(p.digested.length + 1)) advance(uploadId, p);
    });
}

/** The md5 (hex) of `files` concatenated, using what the upload's running digest already covers. */
export async function wholeMd5(uploadId: string, files: { path: string }[]): Promise<string> {
  const p = uploads.get(uploadId);
  while (p?.running) await p.running;
  let hash: Hash;
  let from = 0;
  if (p && p.digested.length <= files.length && p.digested.every((f, i) => files[i].path === f)) {
    hash = p.hash.copy();
    from = p.digested.length;
  } else {
    hash = crypto.createHash("md5");
  }
  for (const f of files.slice(from)) await digestFile(hash, f.path);
  return hash.digest("hex");
}

export function forgetUpload(uploadId: string): void {
  uploads.delete(uploadId);
}
