import { log } from "../log/logger.mjs";
import { STORYBOARD_FILES } from "../media/storyboard-files";
import type { StorageDriver } from "../storage/types";
import { INIT_NAME, PLAYLIST_NAME, leaseKey, masterKeyOf, segmentName, streamDirOf } from "./keys";
import { STANDARD_RUNGS } from "./ladder";
import { readLease } from "./lease";
import { logLost } from "./log-lost";

/** Runs `work` over `items`, at most `limit` at a time (uploads to remote storage overlap). */
export async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/**
 * Deletes an encode folder: its master playlist and each rendition's playlist, init segment and
 * numbered segments (storage has no listing here; segment numbers are consecutive, so the first
 * missing one ends a rendition). Renditions are deleted side by side: on remote storage each
 * segment costs two round trips.
 */
export async function deleteEncodeOutputs(storage: StorageDriver, dir: string, rungNames: string[]): Promise<void> {
  await storage.delete(masterKeyOf(dir)).catch(logLost("deleting an encode's master playlist", { key: masterKeyOf(dir) }));
  for (const name of STORYBOARD_FILES) await storage.delete(`${dir}/${name}`).catch(logLost("deleting an encode's storyboard", { key: `${dir}/${name}` }));
  await eachLimited(rungNames, 4, async (name) => {
    const base = `${dir}/${name}`;
    await storage.delete(`${base}/${PLAYLIST_NAME}`).catch(logLost("deleting a rendition playlist", { key: `${base}/${PLAYLIST_NAME}` }));
    await storage.delete(`${base}/${INIT_NAME}`).catch(logLost("deleting a rendition's init segment", { key: `${base}/${INIT_NAME}` }));
    for (let n = 0; await storage.head(`${base}/${segmentName(n)}`); n++) await storage.delete(`${base}/${segmentName(n)}`);
  });
}

/** A variant URI of a master playlist as the publish step writes it: `<rung>/index.m3u8`. */
const VARIANT_URI = new RegExp(`^([A-Za-z0-9_-]+)/${PLAYLIST_NAME.replace(".", "\\.")}$`);

/** The rung folders a master playlist names (its non-comment lines); anything else is ignored. */
export function rungNamesOf(master: string): string[] {
  const names = master
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((uri) => VARIANT_URI.exec(uri)?.[1])
    .filter((name): name is string => name !== undefined);
  return [...new Set(names)];
}

/**
 * Deletes a published stream: the master playlist and every rendition it lists. If the master
 * playlist cannot be read (already gone, or storage refused the read), the standard rungs are
 * deleted instead: those are the names that can be known without it (a custom top rung, such as
 * 540p, is then left behind). Missing files are not errors; a store that is down still throws.
 */
export async function deleteStream(storage: StorageDriver, streamKey: string): Promise<void> {
  let rungs: string[];
  try {
    rungs = rungNamesOf(await new Response(await storage.read(streamKey)).text());
  } catch {
    rungs = STANDARD_RUNGS.map((side) => `${side}p`);
  }
  await deleteEncodeOutputs(storage, streamDirOf(streamKey), rungs);
}

/** What a head held before a version write or revert replaced its bytes. */
export type ReplacedBytes = { storageKey: string; streamKey: string | null; encodeStatus: string };

/**
 * After a version write or revert that replaced the head's bytes has committed: deletes the
 * stream of the old bytes (nothing serves it any more: only the head has a stream, and a revert
 * back to those bytes encodes them again into a new folder) and their lease, unless a run still
 * holds the lease live. That run is encoding bytes that are no longer the head: its publish
 * finds itself superseded and deletes its outputs and the lease itself; deleting the lease
 * under it would let a second run start on the same bytes if a revert made them the head again.
 * An expired lease belongs to a run that died or is between steps; if it resumes, it writes the
 * lease again and releases it when it finds itself superseded. Failures are logged: the write
 * stands and the files stay behind as unreachable orphans.
 */
export async function deleteReplacedStream(storage: StorageDriver, old: ReplacedBytes, now: Date, what: string): Promise<void> {
  if (old.streamKey) {
    await deleteStream(storage, old.streamKey).catch((err) =>
      log().warn({ component: "encode", stream_key: old.streamKey, of: what, err }, "could not delete a replaced stream; its files stay behind, unreachable"),
    );
  }
  // A lease only exists once a run has claimed the bytes, which moves the status off `none`.
  if (old.encodeStatus === "none") return;
  try {
    const lease = await readLease(storage, old.storageKey);
    if (lease && lease.until <= now.getTime()) await storage.delete(leaseKey(old.storageKey));
  } catch (err) {
    log().warn({ component: "encode", storage_key: old.storageKey, of: what, err }, "could not delete the encode lease of replaced bytes; it stays behind, unreachable");
  }
}
