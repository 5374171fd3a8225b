// How a published stream's files are read and typed belongs to serving (lib/media/stream-files.ts);
// encoding writes them with the same rules.
export { hlsContentType, streamDirOf } from "../media/stream-files";

/**
 * Where an encode's files live in the workspace's storage: beside the original (a file store
 * cannot hold both "a" and "a/…"), one folder per run, so the outputs of a failed or superseded
 * attempt never mix with the published ones:
 *   <original>.hls/<run>/master.m3u8
 *   <original>.hls/<run>/<rung>/index.m3u8, init.mp4, seg_00000.m4s …
 *   <original>.hls/lease.json   which run is encoding these bytes (see lease.ts)
 */
export const streamRoot = (storageKey: string) => `${storageKey}.hls`;

/** Run ids are ULIDs; anything else is reduced to characters safe in a key. */
export const encodeDir = (storageKey: string, runId: string) => `${streamRoot(storageKey)}/${runId.replace(/[^A-Za-z0-9_-]/g, "")}`;

export const masterKeyOf = (dir: string) => `${dir}/master.m3u8`;

export const leaseKey = (storageKey: string) => `${streamRoot(storageKey)}/lease.json`;

/** Whether a published stream was made from these bytes. */
export const streamBelongsTo = (streamKey: string | null, storageKey: string) => Boolean(streamKey?.startsWith(`${streamRoot(storageKey)}/`));

export const SEGMENT_PATTERN = "seg_%05d.m4s";
export const segmentName = (n: number) => `seg_${String(n).padStart(5, "0")}.m4s`;
export const INIT_NAME = "init.mp4";
export const PLAYLIST_NAME = "index.m3u8";
