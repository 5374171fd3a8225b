import crypto from "node:crypto";
import { createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { syncDir } from "../objectstore/disk/atomic";
import { compressor } from "./compression";
import { compressionFor } from "./format";

/**
 * Writes the archive's bytes to `file`, compressed as its name says (format.ts). The bytes go to a
 * temporary file beside it, flushed to disk, then renamed into place: a backup that fails or is
 * interrupted never leaves a file that looks like a complete archive, and an older archive of the
 * same name is replaced only by a complete one. The archive holds the database's secrets: it is
 * readable by its owner only. Resolves with the archive's size in bytes.
 */
export async function writeArchive(source: Readable, file: string): Promise<number> {
  const target = path.resolve(file);
  const dir = path.dirname(target);
  const partial = path.join(dir, `.${path.basename(target)}.partial-${crypto.randomBytes(6).toString("hex")}`);
  const codec = compressor(compressionFor(target));
  try {
    await pipeline([source, ...(codec ? [codec.stream] : []), createWriteStream(partial, { flags: "wx", mode: 0o600 })]);
    await codec?.done;
    const fh = await fs.open(partial, "r+");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.rename(partial, target);
    await syncDir(dir);
    return (await fs.stat(target)).size;
  } catch (err) {
    source.destroy();
    await fs.rm(partial, { force: true });
    throw err;
  }
}

/** Fails before any work when the archive cannot be written where asked. */
export async function checkArchiveTarget(file: string): Promise<void> {
  const target = path.resolve(file);
  const stat = await fs.lstat(target).catch(() => null);
  if (stat?.isDirectory()) throw new Error(`${file} is a directory; name the archive file`);
  // The archive is renamed into place: over a device (/dev/null), a pipe or a link it would replace it.
  if (stat && !stat.isFile()) throw new Error(`${file} exists and is not a regular file`);
  await fs.access(path.dirname(target), fs.constants.W_OK).catch(() => {
    throw new Error(`cannot write into ${path.dirname(target)} (missing, or not writable)`);
  });
}
