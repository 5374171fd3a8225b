import fs from "node:fs";
import path from "node:path";

export type LocalFile = { display: string; absolutePath: string; size: number; mtimeMs: number };
export type Unreadable = { display: string; code: string; message: string };

/**
 * The regular files the command line names: each file argument, and with `recursive` every file
 * under each folder argument (in name order, sub-folders included). Symbolic links are followed
 * for arguments and skipped inside folders (no loops). A folder without `recursive`, or a path
 * that does not exist, is reported, not thrown: the other files still go up.
 */
export async function collectFiles(args: string[], recursive: boolean): Promise<{ files: LocalFile[]; problems: Unreadable[] }> {
  const files: LocalFile[] = [];
  const problems: Unreadable[] = [];
  for (const arg of args) {
    let stat: fs.Stats;
    try {
      stat = await fs.promises.stat(arg);
    } catch (err) {
      problems.push({ display: arg, code: "not_found", message: (err as Error).message });
      continue;
    }
    if (stat.isFile()) {
      files.push({ display: arg, absolutePath: path.resolve(arg), size: stat.size, mtimeMs: stat.mtimeMs });
    } else if (stat.isDirectory()) {
      if (!recursive) {
        problems.push({ display: arg, code: "is_a_folder", message: "a folder: give --recursive to upload what it holds" });
        continue;
      }
      const entries = await fs.promises.readdir(arg, { recursive: true, withFileTypes: true });
      const inside = entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
      inside.sort();
      for (const file of inside) {
        const s = await fs.promises.stat(file);
        files.push({ display: file, absolutePath: path.resolve(file), size: s.size, mtimeMs: s.mtimeMs });
      }
    } else {
      problems.push({ display: arg, code: "not_a_file", message: "neither a file nor a folder" });
    }
  }
  return { files, problems };
}
