import type { StorageDriver } from "../storage/types";
import { INIT_NAME, PLAYLIST_NAME, masterKeyOf, segmentName } from "./keys";

/** Runs `work` over `items`, at most `limit` at a time (uploads to remote storage overlap). */
export async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/**
 * Deletes an unpublished encode folder: its master playlist and each rendition's playlist, init
 * segment and numbered segments (storage has no listing here; segment numbers are consecutive,
 * so the first missing one ends a rendition).
 */
export async function deleteEncodeOutputs(storage: StorageDriver, dir: string, rungNames: string[]): Promise<void> {
  await storage.delete(masterKeyOf(dir)).catch(() => undefined);
  for (const name of rungNames) {
    const base = `${dir}/${name}`;
    await storage.delete(`${base}/${PLAYLIST_NAME}`).catch(() => undefined);
    await storage.delete(`${base}/${INIT_NAME}`).catch(() => undefined);
    for (let n = 0; await storage.head(`${base}/${segmentName(n)}`); n++) await storage.delete(`${base}/${segmentName(n)}`);
  }
}
