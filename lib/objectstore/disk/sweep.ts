import fs from "node:fs/promises";
import path from "node:path";
import { log } from "../../log/logger.mjs";
import { isMissing } from "./atomic";
import type { Layout } from "./layout";
import { forgetUpload } from "./part-digest";

const HOUR = 3600 * 1000;
/** Leftovers of bodies that never finished arriving (a crash mid-upload). */
const TMP_TTL = 24 * HOUR;
/** Multipart uploads never completed or aborted, resumable sessions never finished: GCS's week. */
const PENDING_TTL = 7 * 24 * HOUR;

const lastSweep: Map<string, number> = ((globalThis as { __easelStoreSweeps?: Map<string, number> }).__easelStoreSweeps ??= new Map());

/**
 * Removes what nobody will come back for: temp files older than a day, multipart uploads and
 * resumable sessions untouched for a week. Runs at most hourly per store, in the background of a
 * request that starts a new upload, so an idle store does no work. Ages are file times, so they
 * are measured in real time, never by Easel's movable clock (a test that moves the clock a week
 * ahead must not sweep away uploads in progress).
 */
export function sweepSoon(lay: Layout): void {
  const now = Date.now();
  if (now - (lastSweep.get(lay.root) ?? 0) < HOUR) return;
  lastSweep.set(lay.root, now);
  // Nothing is lost: what stays is swept by the next round, an hour on.
  void sweep(lay, now).catch((err) => log().warn({ component: "objectstore", root: lay.root, err }, "sweep of abandoned uploads failed; tried again in an hour"));
}

export async function sweep(lay: Layout, now: number): Promise<{ removed: string[] }> {
  const removed: string[] = [];
  for (const [dir, ttl] of [
    [lay.tmpDir, TMP_TTL],
    [lay.uploadsDir, PENDING_TTL],
    [lay.sessionsDir, PENDING_TTL],
  ] as const) {
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch (err) {
      if (isMissing(err)) continue;
      throw err;
    }
    for (const name of names) {
      const entry = path.join(dir, name);
      const stat = await fs.stat(entry).catch(() => null);
      // mtime of an upload's folder moves with every part; of a session's, with every chunk.
      if (stat && now - stat.mtimeMs > ttl) {
        await fs.rm(entry, { recursive: true, force: true });
        if (dir === lay.uploadsDir) forgetUpload(name); // and its running digest
        removed.push(entry);
      }
    }
  }
  return { removed };
}
