/**
 * An Easel backup is one tar file (optionally gzip or zstd compressed), in this order:
 *
 *   easel-backup.json                    the manifest: format, when, what the database held
 *   pg/…                                 the embedded database's files, as of the snapshot
 *   objects/<bucket>/.bucket.json        each bucket of the embedded store
 *   objects/<bucket>/<hh>/<sha>.json     each object's record, followed by its data files
 *   objects/<bucket>/<hh>/<sha>.….data
 *   easel-backup-end.json                the trailer: what was archived (its absence = a cut archive)
 *
 * Restoring lays these out as a data dir (EASEL_DATA_DIR) as they are.
 */
export const MANIFEST_ENTRY = "easel-backup.json";
export const TRAILER_ENTRY = "easel-backup-end.json";
export const FORMAT = "easel-backup";
export const FORMAT_VERSION = 1;

export type Manifest = {
  format: typeof FORMAT;
  version: number;
  created_at: string;
  /** PostgreSQL's major version of the embedded database (its data files only open with the same one). */
  pg_version: string;
  assets: number;
  versions: number;
  /** How long the database was locked for the snapshot. */
  db_locked_ms: number;
};

export type Trailer = {
  objects: number;
  /** Bytes of object data archived. */
  object_bytes: number;
  /** Objects whose files were missing or truncated in the data dir: not archived. */
  damaged: string[];
};

/** What `backup` reports when done (the last line of its output). */
export type BackupSummary = { assets: number; versions: number; objects: number; dbLockedMs: number; damaged: string[] };

export type Compression = "none" | "gzip" | "zstd";

/** Chosen by the archive's file name: .gz/.tgz gzip, .zst/.tzst zstd, anything else plain tar. */
export function compressionFor(file: string): Compression {
  if (/\.(gz|tgz)$/i.test(file)) return "gzip";
  if (/\.(zst|tzst)$/i.test(file)) return "zstd";
  return "none";
}

/** Recognised by its first bytes when reading an archive back. */
export function compressionOf(head: Buffer): Compression {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return "gzip";
  if (head.length >= 4 && head.readUInt32LE(0) === 0xfd2fb528) return "zstd";
  return "none";
}
