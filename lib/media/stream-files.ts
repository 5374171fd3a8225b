import crypto from "node:crypto";

/**
 * The files of a published HLS stream, as the media route finds and serves them. An encode
 * (lib/encode/keys.ts) writes a run's files under one folder: the master playlist at
 * `<folder>/master.m3u8`, each rung's files in `<folder>/<rung>/`.
 *
 * URLs (contract §14: what a cache may keep names its content):
 *   /media/<asset>/stream                          the master playlist of the head's stream
 *   /media/<asset>/stream/<run>/<rung>/<file>      a file of that encode run: a new encode is a new
 *                                                  run, so these URLs never change bytes
 *   /media/<asset>/stream/<rung>/<file>            the same file of whichever run is published now
 *                                                  (links from before runs were named; never cached)
 */

/** The folder of a published stream (its master playlist's folder). */
export const streamDirOf = (streamKey: string) => streamKey.slice(0, streamKey.lastIndexOf("/"));

/** Content type of a file of a stream folder by its name. */
export function hlsContentType(name: string): string {
  if (name.endsWith(".m3u8")) return "application/vnd.apple.mpegurl";
  if (name.endsWith(".m4s")) return "video/iso.segment";
  if (name.endsWith(".mp4")) return "video/mp4";
  if (name.endsWith(".ts")) return "video/mp2t";
  return "application/octet-stream";
}

/**
 * A file of a published stream, as the media route serves it. `run`: the published run's name in
 * URLs; `immutable`: this URL names that run, so its bytes never change and caches may keep it.
 */
export type StreamFileTarget = { key: string; contentType: string; master: boolean; playlist: boolean; immutable: boolean; run: string };

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * The name of a published stream's encode run in its URLs: the run folder (a ULID, see
 * lib/encode/keys.ts). A stream stored in any other layout is named by a digest of its key, which
 * changes with every encode as well.
 */
export function streamRunOf(streamKey: string): string {
  const dir = streamDirOf(streamKey);
  const folder = dir.slice(dir.lastIndexOf("/") + 1);
  if (/^[A-Za-z0-9_-]{1,64}$/.test(folder)) return folder;
  return `k${crypto.createHash("sha256").update(streamKey).digest("hex").slice(0, 26)}`;
}

/**
 * `/media/<asset>/stream[/<file path>]` → the stored file it names, or null. Names are checked one
 * by one (no `..`, no other folder of the store is reachable); a path naming a run other than the
 * published one names nothing (its files may be gone, and the head no longer plays them).
 */
export function streamFileKey(streamKey: string | null, rest: string[]): StreamFileTarget | null {
  if (!streamKey) return null;
  const run = streamRunOf(streamKey);
  if (rest.length === 0) return { key: streamKey, contentType: hlsContentType(streamKey), master: true, playlist: true, immutable: false, run };
  if (rest.length > 3 || !rest.every((s) => NAME.test(s))) return null;
  const named = rest.length === 3;
  if (named && rest[0] !== run) return null;
  const path = named ? rest.slice(1) : rest;
  const name = path[path.length - 1];
  const playlist = name.endsWith(".m3u8");
  return { key: `${streamDirOf(streamKey)}/${path.join("/")}`, contentType: hlsContentType(name), master: false, playlist, immutable: named && !playlist, run };
}

/** A year: the longest a cache is told to keep anything. */
const YEAR_SECONDS = 31_536_000;

/**
 * Playlists are reached from handed-out links and change with the head: caches revalidate them
 * every time (`no-cache`, answered 304 on a matching ETag). Init segments and segments under a
 * run's URL never change, so any cache may keep them, though never past the moment the link's
 * own authorisation ends (`authorisedUntilMs`): a cache must not keep serving a link that Easel
 * itself would refuse. Files reached by the older run-less URLs are revalidated like playlists.
 */
export function streamCacheControl(file: Pick<StreamFileTarget, "immutable">, authorisedUntilMs: number, nowMs: number): string {
  if (!file.immutable) return "no-cache";
  const seconds = Math.max(0, Math.min(YEAR_SECONDS, Math.floor((authorisedUntilMs - nowMs) / 1000)));
  return `max-age=${seconds}, immutable`;
}
