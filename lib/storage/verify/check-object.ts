import crypto from "node:crypto";
import { DomainError } from "../../errors";
import { isMissing } from "../../objectstore/disk/atomic";
import type { ObjectSource } from "./sources";
import type { Target } from "./targets";

export type Outcome = { problem: null; text?: string } | { problem: "missing" } | { problem: "corrupt"; detail: string };

/** A playlist Easel writes is a few KiB; one past this is not what was written, and is not read into memory. */
export const MAX_PLAYLIST_BYTES = 8 * 1024 * 1024;

const corrupt = (detail: string): Outcome => ({ problem: "corrupt", detail });

/** The object went away while it was being read (another process replaced or deleted it, or the file was removed). */
const goneMidway = (err: unknown) => isMissing(err) || (err instanceof DomainError && err.code === "storage_object_not_found");

/**
 * Reads one object through and compares it with what was recorded: its size first (from the
 * store, no bytes read), then the bytes streamed through md5, chunk by chunk. `keepText` keeps
 * the body (up to MAX_PLAYLIST_BYTES) for the caller, which needs a playlist's lines.
 * `onBytes` counts bytes read, for progress.
 */
export async function checkObject(source: ObjectSource, target: Target, opts: { keepText?: boolean; onBytes?: (n: number) => void } = {}): Promise<Outcome> {
  const found = await source.find(target.key, !target.recorded);
  if (found.state === "missing") return { problem: "missing" };
  if (found.state === "damaged") return corrupt(found.detail);
  const size = target.recorded?.size ?? found.size;
  const md5 = target.recorded?.md5 ?? found.md5;
  if (found.size !== size) return corrupt(`the store holds ${found.size} bytes, recorded ${size}`);
  if (opts.keepText && size > MAX_PLAYLIST_BYTES) return corrupt(`a playlist of ${size} bytes (over ${MAX_PLAYLIST_BYTES}), not read`);
  const body = await source.open(target.key);
  if (!body) return { problem: "missing" };
  const hash = crypto.createHash("md5");
  const kept: Buffer[] = [];
  let read = 0;
  try {
    for await (const chunk of body) {
      hash.update(chunk);
      read += chunk.byteLength;
      opts.onBytes?.(chunk.byteLength);
      if (opts.keepText && read <= MAX_PLAYLIST_BYTES) kept.push(Buffer.from(chunk));
    }
  } catch (err) {
    if (goneMidway(err)) return { problem: "missing" };
    throw err;
  }
  if (read !== size) return corrupt(`read ${read} bytes, recorded ${size}`);
  const digest = hash.digest("hex");
  if (md5 && digest !== md5) return corrupt(`md5 ${digest}, recorded ${md5}`);
  return opts.keepText ? { problem: null, text: Buffer.concat(kept).toString("utf8") } : { problem: null };
}
