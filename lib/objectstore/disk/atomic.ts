import fs from "node:fs/promises";
import path from "node:path";
import type { Layout } from "./layout";

/** Writes a small JSON record so that readers see the old version or the new one, never a torn file. */
export async function writeJsonAtomic(lay: Layout, target: string, value: unknown): Promise<void> {
  await fs.mkdir(lay.tmpDir, { recursive: true });
  const tmp = lay.tmpFile();
  const fh = await fs.open(tmp, "wx");
  try {
    await fh.writeFile(JSON.stringify(value));
    await fh.datasync();
  } finally {
    await fh.close();
  }
  try {
    await fs.rename(tmp, target);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await syncDir(path.dirname(target));
}

export async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse(await fs.readFile(file, "utf8")) as T;
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

/** Makes a rename durable: the directory entry itself is flushed. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await fs.open(dir, "r");
  try {
    await fh.sync();
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic there.
  } finally {
    await fh.close();
  }
}

export function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
