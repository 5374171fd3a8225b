import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { StorageDriver } from "../storage/types";
import { EncodeFailure } from "./errors";

const ROOT = path.join(os.tmpdir(), "easel-encode");

/** A run's scratch folder: the source and the rendition being encoded. */
export const workDir = (runId: string) => path.join(ROOT, runId.replace(/[^A-Za-z0-9_-]/g, ""));

/**
 * The source bytes as a local file for ffmpeg. Every step of a run may execute in another process
 * (or after a restart), so each step makes sure the file is there, downloading it once per
 * process; a download cut short is never mistaken for the file (it lands under another name).
 */
export async function sourceFile(storage: StorageDriver, storageKey: string, runId: string): Promise<string> {
  const info = await storage.head(storageKey);
  if (!info) throw new EncodeFailure("source_missing", `the original ${storageKey} is not in storage`);
  const dir = workDir(runId);
  const file = path.join(dir, "source");
  const have = await fs.promises.stat(file).catch(() => null);
  if (have?.size === info.size) return file;
  await fs.promises.mkdir(dir, { recursive: true });
  const part = `${file}.${process.pid}.part`;
  await pipeline(Readable.fromWeb((await storage.read(storageKey)) as never), fs.createWriteStream(part));
  await fs.promises.rename(part, file);
  return file;
}

export async function removeWorkDir(runId: string): Promise<void> {
  await fs.promises.rm(workDir(runId), { recursive: true, force: true });
}

/** Scratch folders of runs that ended in a crash and never came back: removed after a day. */
export async function sweepWorkDirs(maxAgeMs = 24 * 3600_000): Promise<void> {
  const entries = await fs.promises.readdir(ROOT).catch(() => [] as string[]);
  for (const name of entries) {
    const stat = await fs.promises.stat(path.join(ROOT, name)).catch(() => null);
    if (stat && Date.now() - stat.mtimeMs > maxAgeMs) await fs.promises.rm(path.join(ROOT, name), { recursive: true, force: true });
  }
}
