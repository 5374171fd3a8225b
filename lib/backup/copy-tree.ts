import fs from "node:fs/promises";
import path from "node:path";
import pLimit from "p-limit";

/**
 * Copies a folder tree (the database's files) with many copies in flight: most of PostgreSQL's
 * files are small, and one at a time (as fs.cp does) the copy of a fresh ~40 MB cluster took
 * ~1.2 s here against ~0.2 s this way. The copy is what the database waits for during a backup.
 * Files are cloned where the filesystem supports it (reflinks), else copied.
 */
export async function copyTree(from: string, to: string, skip: (name: string) => boolean = () => false): Promise<void> {
  const limit = pLimit(16);
  async function copyDir(src: string, dst: string): Promise<void> {
    await fs.mkdir(dst, { mode: 0o700 });
    const entries = await fs.readdir(src, { withFileTypes: true });
    await Promise.all(
      entries.map((entry) => {
        const s = path.join(src, entry.name);
        const d = path.join(dst, entry.name);
        if (skip(entry.name)) return undefined;
        if (entry.isDirectory()) return copyDir(s, d);
        if (entry.isFile()) return limit(() => fs.copyFile(s, d, fs.constants.COPYFILE_FICLONE));
        throw new Error(`${s} is neither a file nor a folder`);
      }),
    );
  }
  await copyDir(from, to);
}
