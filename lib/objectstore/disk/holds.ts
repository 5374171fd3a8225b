import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { log } from "../../log/logger.mjs";
import { isMissing } from "./atomic";

/**
 * Deletion holds: while a backup copies the store (lib/backup), no data file of an object that
 * existed when its database snapshot was taken may disappear. Overwrites and deletes keep working
 * as always for every client (a deleted object is gone from HEAD and GET at once); only the
 * removal of the files they give up is deferred until the last hold on the store ends.
 *
 * A hold also remembers the record of every object deleted while it lasts, so the backup can still
 * archive an object that was deleted after its snapshot but before its walk reached it.
 *
 * Deferred files are listed in a journal (`.holds/<id>.list` in the store's root) as they are
 * deferred: a process that dies while holding leaves only files nobody names any more, and the
 * next owner of the data dir removes what the journals list (releaseStaleHolds). One process owns
 * the store's files, so the in-process state is the whole story while it lives.
 */
export type Hold = {
  readonly root: string;
  /** The record of an object deleted while the hold lasts, by its path relative to the root. */
  deletedRecord(relativePath: string): unknown;
  /** Records deleted while the hold lasts in one folder (relative to the root): their file names. */
  deletedIn(relativeDir: string): string[];
};

type RootState = { root: string; holds: Set<HoldState>; deferred: string[]; journal: string; chain: Promise<void> };
type HoldState = Hold & { deleted: Map<string, unknown> };
type Registry = Map<string, RootState>;

const roots: Registry = ((globalThis as { __easelStoreHolds?: Registry }).__easelStoreHolds ??= new Map());

const journalDir = (root: string) => path.join(root, ".holds");

function rootOf(file: string): RootState | undefined {
  const abs = path.resolve(file);
  for (const [root, state] of roots) if (abs.startsWith(root + path.sep)) return state;
  return undefined;
}

/** Starts a hold on the store at `root`. Synchronous: it is in force from this very moment. */
export function beginHold(root: string): Hold {
  const resolved = path.resolve(root);
  let state = roots.get(resolved);
  if (!state) {
    state = { root: resolved, holds: new Set(), deferred: [], journal: path.join(journalDir(resolved), `${crypto.randomBytes(9).toString("hex")}.list`), chain: Promise.resolve() };
    roots.set(resolved, state);
  }
  const deleted = new Map<string, unknown>();
  const hold: HoldState = {
    root: resolved,
    deleted,
    deletedRecord: (rel) => deleted.get(rel),
    deletedIn: (dir) => [...deleted.keys()].filter((rel) => path.dirname(rel) === dir).map((rel) => path.basename(rel)),
  };
  state.holds.add(hold);
  return hold;
}

/**
 * Of `files` (absolute paths) being given up, the ones that may go now; the others are deferred
 * until the holds on their store end.
 */
export function deferIfHeld(files: string[]): string[] {
  const now: string[] = [];
  for (const file of files) {
    const state = rootOf(file);
    if (!state) {
      now.push(file);
      continue;
    }
    state.deferred.push(file);
    const line = `${path.relative(state.root, path.resolve(file))}\n`;
    const journal = state.journal;
    state.chain = state.chain.then(() => appendJournal(journal, line));
  }
  return now;
}

async function appendJournal(journal: string, line: string) {
  try {
    await fs.mkdir(path.dirname(journal), { recursive: true });
    await fs.appendFile(journal, line, { mode: 0o600 });
  } catch (err) {
    // The file stays deferred in memory and is removed when the hold ends; only a crash before
    // then would leave it behind unlisted (an unreferenced file, never a wrong answer).
    log().warn({ component: "objectstore", journal, err }, "could not list a deferred deletion; the file is removed when the hold ends, or left unreferenced by a crash before");
  }
}

/** A deleted object's record, for the holds on its store (called before the record goes). */
export function noteDeletedRecord(recordPath: string, record: unknown): void {
  const state = rootOf(recordPath);
  if (!state) return;
  for (const hold of state.holds) {
    const rel = path.relative(hold.root, path.resolve(recordPath));
    // The first deletion is the one that removed the object as the snapshot knew it.
    if (!hold.deleted.has(rel)) hold.deleted.set(rel, record);
  }
}

/**
 * Ends a hold. When it was the store's last, resolves with the files deferred meanwhile (the caller
 * removes them) and `done`, which drops their journal once they are removed.
 */
export async function endHold(hold: Hold): Promise<{ files: string[]; done: () => Promise<void> }> {
  const state = roots.get(hold.root);
  const nothing = { files: [], done: async () => undefined };
  if (!state || !state.holds.delete(hold as HoldState)) return nothing;
  if (state.holds.size) return nothing;
  roots.delete(hold.root);
  await state.chain;
  return { files: state.deferred, done: () => fs.rm(state.journal, { force: true }) };
}

/**
 * Removes the files listed by holds of a process that died holding (their journals), and the
 * journals. Call when taking ownership of the data dir, before any hold starts.
 */
export async function releaseStaleHolds(root: string): Promise<number> {
  const dir = journalDir(path.resolve(root));
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if (isMissing(err)) return 0;
    throw err;
  }
  const live = new Set([...roots.values()].map((s) => path.basename(s.journal)));
  let removed = 0;
  for (const name of names) {
    if (live.has(name)) continue;
    const journal = path.join(dir, name);
    const text = await fs.readFile(journal, "utf8");
    for (const rel of text.split("\n")) {
      // Only data files inside a bucket folder of this store: a damaged journal cannot name anything else.
      if (!/^[a-z0-9][a-z0-9.-]*\/[0-9a-f]{2}\/[0-9a-f]{64}\.[0-9a-f]+(\.\d+)?\.data$/.test(rel)) continue;
      await fs.rm(path.join(path.resolve(root), rel), { force: true });
      removed++;
    }
    await fs.rm(journal, { force: true });
  }
  return removed;
}
