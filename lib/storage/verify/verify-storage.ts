import { asc } from "drizzle-orm";
import pLimit from "p-limit";
import type { Db } from "../../db";
import { workspaces, type StorageKind, type Workspace } from "../../db/schema";
import { streamDirOf } from "../../encode/keys";
import { getWorkspaceOrThrow } from "../../workspaces/manage-workspaces";
import { checkObject, type Outcome } from "./check-object";
import { sourceFor, type ObjectSource } from "./sources";
import { streamFilesAfterMaster } from "./stream-files";
import { assetFilesOf, currentFilesOf, type AssetFiles, type Target } from "./targets";

export type VerifySummary = { checked: number; missing: number; corrupt: number; bytes: number };

export type VerifyOptions = {
  /** Only this workspace (its slug); every workspace when absent. */
  workspace?: string;
  /** One line per problem: `missing <key> (asset <token> v<n>)` or `corrupt <key> (asset <token> v<n>): <what>`. */
  report: (line: string) => void;
  /** Called after each object with the totals so far. */
  progress?: (totals: VerifySummary) => void;
  /** Objects read at once (default 4). */
  concurrency?: number;
  /** Where a workspace kind's objects are read from (default: as the server's configuration places them). */
  sourceFor?: (kind: StorageKind) => ObjectSource;
};

/**
 * `storage verify`: every stored file of every asset (the head's original and thumbnails, each
 * version's original and thumbnails, the head's HLS stream) is read through and compared with its
 * recorded size and md5 (check-object.ts). Assets are listed a page at a time and files are read
 * a few at a time, each streamed, so memory stays bounded whatever the store's size.
 *
 * A problem is confirmed before it is reported: the asset's files are read from the database
 * again and, if the file still belongs to it, the object is checked again. So a write racing
 * the run (an asset deleted, a thumbnail re-rendered, a stream replaced) is not reported.
 */
export async function verifyStorage(db: Db, opts: VerifyOptions): Promise<VerifySummary> {
  const spaces: Workspace[] = opts.workspace ? [await getWorkspaceOrThrow(db, opts.workspace)] : await db.select().from(workspaces).orderBy(asc(workspaces.id));
  const totals: VerifySummary = { checked: 0, missing: 0, corrupt: 0, bytes: 0 };
  const onBytes = (n: number) => void (totals.bytes += n);
  const limit = pLimit(opts.concurrency ?? 4);
  const running = new Set<Promise<void>>();
  let failure: { err: unknown } | null = null;
  const sources = new Map<StorageKind, ObjectSource>();
  const source = (kind: StorageKind) => sources.get(kind) ?? sources.set(kind, (opts.sourceFor ?? ((k) => sourceFor(k, db)))(kind)).get(kind)!;

  /** Checks one object, confirms a problem, counts and reports it; returns the outcome that stands. */
  const verify = async (src: ObjectSource, target: Target, keepText = false): Promise<Outcome> => {
    let outcome = await checkObject(src, target, { keepText, onBytes });
    if (outcome.problem && (await stillHeld(db, target))) outcome = await checkObject(src, target, { keepText, onBytes });
    else if (outcome.problem) outcome = { problem: null };
    totals.checked++;
    if (outcome.problem === "missing") {
      totals.missing++;
      opts.report(`missing ${target.key} (asset ${target.ref.token} v${target.ref.version})`);
    } else if (outcome.problem === "corrupt") {
      totals.corrupt++;
      opts.report(`corrupt ${target.key} (asset ${target.ref.token} v${target.ref.version}): ${outcome.detail}`);
    }
    opts.progress?.(totals);
    return outcome;
  };

  /** Queues a check; waits while every lane is busy, so the listing never runs far ahead of the reading. */
  const submit = async (task: () => Promise<unknown>) => {
    while (running.size >= limit.concurrency * 2) await Promise.race(running);
    if (failure) throw failure.err;
    const p: Promise<void> = limit(task).then(
      () => void running.delete(p),
      (err: unknown) => {
        running.delete(p);
        failure ??= { err };
      },
    );
    running.add(p);
  };

  try {
    for (const ws of spaces) {
      const src = source(ws.storageKind);
      for await (const files of assetFilesOf(db, ws.id)) {
        for (const target of files.targets) await submit(() => verify(src, target));
        if (files.streamKey) await verifyStream(src, files, verify, submit);
      }
    }
  } finally {
    await Promise.all(running);
  }
  if (failure) throw (failure as { err: unknown }).err;
  return totals;
}

type Verify = (src: ObjectSource, target: Target, keepText?: boolean) => Promise<Outcome>;

/** The stream's playlists are read here, in order (their lines name the other files); the files they name are queued. */
async function verifyStream(src: ObjectSource, files: AssetFiles, verify: Verify, submit: (task: () => Promise<unknown>) => Promise<void>): Promise<void> {
  const streamKey = files.streamKey!;
  const target = (key: string): Target => ({ key, ref: files.ref, recorded: null, kind: "stream" });
  const readPlaylist = async (key: string) => {
    const outcome = await verify(src, target(key), true);
    return outcome.problem === null ? (outcome.text ?? "") : null;
  };
  const master = await readPlaylist(streamKey);
  if (master === null) return;
  for await (const key of streamFilesAfterMaster(streamKey, master, readPlaylist)) await submit(() => verify(src, target(key)));
}

/** Whether the file is still the asset's now: its head or a version holds the key, or, for a stream file, the head still has that stream. */
async function stillHeld(db: Db, target: Target): Promise<boolean> {
  const now = await currentFilesOf(db, target.ref.assetId);
  if (!now) return false;
  if (target.kind === "stream") return now.streamKey !== null && target.key.startsWith(`${streamDirOf(now.streamKey)}/`);
  return now.targets.some((t) => t.key === target.key);
}
