import type { Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { isMainThread } from "node:worker_threads";
import { log } from "../../log/logger.mjs";

const SHARED_BITS = 0o077;

/** The data dir belongs to someone else: Easel may not make it private, so it does not start. */
export class DataDirOwnerError extends Error {
  constructor(dir: string, owner: number, self: number) {
    super(
      `the data dir ${dir} belongs to uid ${owner}, but Easel runs as uid ${self}: it holds the database and the keys that sign sessions, so it must be this process's own. ` +
        `Run Easel as uid ${owner}, or give the folder to this user (chown -R ${self} ${dir}), or set EASEL_DATA_DIR to a folder of its own.`,
    );
    this.name = "DataDirOwnerError";
  }
}

/** What was made private: how many entries, and the first few (path relative to the data dir, mode before, octal). */
export type PrivacyReport = { count: number; examples: { path: string; mode: string }[] };

const EXAMPLES = 20;

/**
 * Makes the data dir what PostgreSQL makes its own: the folder 0700 and nothing in it readable or
 * writable by group or others (entries lose those bits, owner bits stay). An operator's `mkdir`, a
 * Docker volume or an older Easel may have left it 0755 with 0666 files, through which any local
 * user could read the auth secret, signing keys and the store's key pair. A missing dir is left
 * for whoever creates it (always 0700). Symlinks are not followed. A dir, or anything in it, that
 * belongs to another user is not this process's to fix: DataDirOwnerError (the dir itself is
 * checked before anything changes). `self`: the uid the process runs as (a test passes another).
 */
export async function makeDataDirPrivate(dataDir: string, self: number | undefined = process.getuid?.()): Promise<PrivacyReport> {
  const dir = path.resolve(dataDir);
  const top = await unlessGone(fs.lstat(dir));
  const report: PrivacyReport = { count: 0, examples: [] };
  if (top === GONE) return report;
  const visit = async (p: string, stat: Stats) => {
    if (self !== undefined && stat.uid !== self) throw new DataDirOwnerError(dir, stat.uid, self);
    if (!stat.isSymbolicLink() && (stat.mode & SHARED_BITS) !== 0 && (await unlessGone(fs.chmod(p, stat.mode & 0o7700))) !== GONE) {
      report.count++;
      if (report.examples.length < EXAMPLES) report.examples.push({ path: path.relative(dir, p) || ".", mode: (stat.mode & 0o7777).toString(8).padStart(4, "0") });
    }
    if (!stat.isDirectory()) return;
    // One folder's names at a time: a store of millions of objects is walked in bounded memory.
    const names = await unlessGone(fs.readdir(p));
    if (names === GONE) return;
    for (const name of names) {
      const child = path.join(p, name);
      const childStat = await unlessGone(fs.lstat(child));
      if (childStat !== GONE) await visit(child, childStat);
    }
  };
  await visit(dir, top);
  return report;
}

const GONE = Symbol("gone");

/**
 * An entry removed while the dir is walked (another worker's temporary file, a finished upload's
 * part): nothing is left there to protect, so it is skipped rather than stopping the start.
 */
async function unlessGone<T>(op: Promise<T>): Promise<T | typeof GONE> {
  try {
    return await op;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return GONE;
    throw err;
  }
}

/**
 * What PostgreSQL's server does at start: a umask of 077, so every file and folder the process
 * creates from then on (the object store's files, the lock, secrets, backups) is its owner's only.
 * Worker threads may not change the umask; they share the main thread's.
 */
export function useOwnerOnlyUmask(): void {
  if (isMainThread) process.umask(0o077);
}

/**
 * Server start (lib/boot.ts): the data dir is the process's own, as PostgreSQL's is
 * (docs/operations.md). From now on everything created is 0600/0700, and what an earlier start,
 * an operator's mkdir or a volume left open to others is closed now, with a line naming it.
 * Throws DataDirOwnerError for a dir of another user.
 */
export async function protectDataDirAtStart(dataDir: string): Promise<PrivacyReport> {
  useOwnerOnlyUmask();
  const report = await makeDataDirPrivate(dataDir);
  if (report.count > 0) {
    log().warn(
      { component: "data-dir", dir: path.resolve(dataDir), count: report.count, examples: report.examples },
      `made ${report.count} entries of the data dir private: they were open to other users; now folders are 0700 and files 0600`,
    );
  }
  return report;
}
