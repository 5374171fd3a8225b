/**
 * The files of a published HLS stream, as the media route finds and serves them. An encode
 * (lib/encode/keys.ts) writes a run's files under one folder: the master playlist at
 * `<folder>/master.m3u8`, each rung's files in `<folder>/<rung>/`.
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

/** A file of a published stream, as the media route serves it. */
export type StreamFileTarget = { key: string; contentType: string; master: boolean; playlist: boolean };

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * `/media/<asset>/stream` is the master playlist; `/media/<asset>/stream/<rung>/<file>` a file of
 * its folder. Names are checked one by one (no `..`, no other folder of the store is reachable).
 */
export function streamFileKey(streamKey: string | null, rest: string[]): StreamFileTarget | null {
  if (!streamKey) return null;
  if (rest.length === 0) return { key: streamKey, contentType: hlsContentType(streamKey), master: true, playlist: true };
  if (rest.length > 2 || !rest.every((s) => NAME.test(s))) return null;
  const name = rest[rest.length - 1];
  return { key: `${streamDirOf(streamKey)}/${rest.join("/")}`, contentType: hlsContentType(name), master: false, playlist: name.endsWith(".m3u8") };
}

/**
 * The master playlist's URL is stable across encodes (it names the asset, not a run): players
 * revalidate it. Everything under it sits in a folder of one run and never changes.
 */
export const streamCacheControl = (file: Pick<StreamFileTarget, "master">) => (file.master ? "private, no-cache" : "private, max-age=31536000, immutable");
