import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openAsServer } from "../../lib/db/embedded/open";
import { DataDirOwnerError, makeDataDirPrivate, protectDataDirAtStart } from "../../lib/db/embedded/private-data-dir";
import { captureLogs } from "../../lib/log/capture";

/**
 * The data dir holds the database, the auth secret, the signing keys and the store's key pair:
 * like PostgreSQL's, it is its owner's only (0700 folders, 0600 files), however it was created,
 * whatever the umask, and after PGlite writes and checkpoints. A dir of another user stops the start.
 */
let root: string;
const originalUmask = process.umask();

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "easel-privacy-"));
});
afterEach(() => {
  process.umask(originalUmask);
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const modeOf = (p: string) => fs.lstatSync(p).mode & 0o7777;

/** Every entry under `dir` (not following links) whose mode lets group or others in. */
function sharedEntries(dir: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    for (const e of fs.readdirSync(p, { withFileTypes: true })) {
      const child = path.join(p, e.name);
      if (e.isSymbolicLink()) continue;
      if (modeOf(child) & 0o077) out.push(`${path.relative(dir, child)} ${modeOf(child).toString(8)}`);
      if (e.isDirectory()) walk(child);
    }
  };
  if (modeOf(dir) & 0o077) out.push(`. ${modeOf(dir).toString(8)}`);
  walk(dir);
  return out;
}

/** A data dir as an operator's `mkdir` and an older Easel leave it: 0755, with files anyone may read or write. */
function looseDataDir(name: string) {
  const dir = path.join(root, name);
  fs.mkdirSync(path.join(dir, "objects", "easel"), { recursive: true });
  fs.chmodSync(dir, 0o755);
  fs.chmodSync(path.join(dir, "objects"), 0o755);
  fs.chmodSync(path.join(dir, "objects", "easel"), 0o775);
  fs.writeFileSync(path.join(dir, "easel.lock"), "{}");
  fs.chmodSync(path.join(dir, "easel.lock"), 0o666);
  fs.writeFileSync(path.join(dir, "objects", "easel", "blob"), "bytes");
  fs.chmodSync(path.join(dir, "objects", "easel", "blob"), 0o644);
  fs.writeFileSync(path.join(dir, "objects", "own-only"), "x", { mode: 0o600 });
  // A link is not followed: its target outside keeps its mode.
  const outside = path.join(root, `${name}-outside`);
  fs.writeFileSync(outside, "not Easel's");
  fs.chmodSync(outside, 0o644);
  fs.symlinkSync(outside, path.join(dir, "link"));
  return { dir, outside };
}

describe("start into an existing data dir", () => {
  it("a pre-created 0755 folder with loose files: everything becomes 0700/0600, and the start says what it changed", async () => {
    const { dir, outside } = looseDataDir("loose");
    expect(sharedEntries(dir)).toHaveLength(5);
    const logs = captureLogs();
    try {
      const report = await protectDataDirAtStart(dir);
      expect(report.count).toBe(5);
      expect(report.examples).toContainEqual({ path: "easel.lock", mode: "0666" });
      expect(report.examples).toContainEqual({ path: ".", mode: "0755" });
      const [line] = logs.lines().filter((l) => l.component === "data-dir");
      expect(line).toMatchObject({ level: "warn", count: 5, dir });
      expect(line.msg).toMatch(/made 5 entries of the data dir private/);
    } finally {
      logs.restore();
    }
    expect(sharedEntries(dir)).toEqual([]);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(path.join(dir, "easel.lock"))).toBe(0o600);
    expect(modeOf(path.join(dir, "objects", "easel"))).toBe(0o700);
    expect(modeOf(outside)).toBe(0o644);
    // And from then on what the process creates is private too (PostgreSQL's umask).
    fs.writeFileSync(path.join(dir, "objects", "later"), "x");
    fs.mkdirSync(path.join(dir, "objects", "later-dir"));
    expect(sharedEntries(dir)).toEqual([]);
    // A second start finds nothing to change, and says nothing.
    expect((await makeDataDirPrivate(dir)).count).toBe(0);
  });

  it("a missing data dir is left to whoever creates it", async () => {
    const dir = path.join(root, "missing");
    expect(await makeDataDirPrivate(dir)).toEqual({ count: 0, examples: [] });
    expect(fs.existsSync(dir)).toBe(false);
  });

  it("a data dir of another user: refused with a message naming the fix, and nothing changed", async () => {
    const { dir } = looseDataDir("foreign");
    const self = process.getuid!();
    const other = self + 4242;
    // As another uid would see it: the files are not its own.
    await expect(makeDataDirPrivate(dir, other)).rejects.toThrow(DataDirOwnerError);
    await expect(makeDataDirPrivate(dir, other)).rejects.toThrow(`chown -R ${other} ${dir}`);
    expect(modeOf(dir)).toBe(0o755);
    if (self === 0) {
      // Running as root (root could chmod anything): the dir given to another uid is refused all the same.
      fs.chownSync(dir, 4242, 4242);
      const refusal = await protectDataDirAtStart(dir).catch((err: unknown) => err);
      expect(refusal).toBeInstanceOf(DataDirOwnerError);
      expect((refusal as Error).message).toMatch(/belongs to uid 4242, but Easel runs as uid 0/);
      expect(modeOf(dir)).toBe(0o755);
      // So is a dir of its own holding another user's file.
      fs.chownSync(dir, 0, 0);
      fs.chownSync(path.join(dir, "objects", "easel", "blob"), 4242, 4242);
      await expect(protectDataDirAtStart(dir)).rejects.toThrow(/belongs to uid 4242/);
    }
  });
});

describe("the embedded database's files", () => {
  it("after a new cluster, writes, schema changes and checkpoints, nothing under pg/ is open to group or others, under umask 022", async () => {
    process.umask(0o022);
    const dir = path.join(root, "database");
    const handle = await openAsServer(dir);
    if (handle.kind !== "owner") throw new Error("expected to own the data dir");
    try {
      await handle.serve();
      expect(sharedEntries(path.join(dir, "pg"))).toEqual([]);
      await handle.pg.exec("create table t (id int primary key, body text); insert into t select g, repeat('x', 200) from generate_series(1, 5000) g;");
      await handle.pg.exec("checkpoint");
      // A schema change rewrites the relcache files (pg_internal.init), which PGlite chmods 0644.
      await handle.pg.exec("create index t_body on t (body); alter table t add column extra int;");
      await handle.pg.query("select count(*) from t");
      await handle.pg.exec("vacuum full t");
      await handle.pg.exec("checkpoint");
      expect(sharedEntries(path.join(dir, "pg"))).toEqual([]);
    } finally {
      await handle.close();
    }
    expect(sharedEntries(path.join(dir, "pg"))).toEqual([]);
    expect(modeOf(path.join(dir, "pg"))).toBe(0o700);
  });
});
