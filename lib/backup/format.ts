/**
 * An Easel backup is one tar file (optionally gzip or zstd compressed), in this order:
 *
 *   easel-backup.json                    the manifest: format, when, what the database held
 *   pg/…                                 the embedded database's files, as of the snapshot
 *   objects/<bucket>/.bucket.json        each bucket of the embedded store
 *   objects/<bucket>/<hh>/<sha>.json     each object's record, followed by its data files
 *   objects/<bucket>/<hh>/<sha>.….data
 *   easel-backup-end.json                the trailer: what was archived (its absence = a cut archive),
 *                                        the digest of every entry before it, and its signature
 *
 * Restoring lays these out as a data dir (EASEL_DATA_DIR) as they are. The signature is an
 * HMAC-SHA256, with the data dir's backup key (signing-key.ts), over the trailer's fields, the
 * digest (archive-digest.ts) included: it covers every byte of every entry. Version 1 archives
 * (before signing) have no digest, key id or signature.
 */
export const MANIFEST_ENTRY = "easel-backup.json";
export const TRAILER_ENTRY = "easel-backup-end.json";
export const FORMAT = "easel-backup";
export const FORMAT_VERSION = 2;
/** Archives made before backups were signed: restored only without a key (restore-archive.ts). */
export const UNSIGNED_FORMAT_VERSION = 1;

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
  /** The id of the key the trailer is signed with (signing-key.ts); absent in version 1. */
  key_id?: string;
};

export type Trailer = {
  objects: number;
  /** Bytes of object data archived. */
  object_bytes: number;
  /** Objects whose files were missing or truncated in the data dir: not archived. */
  damaged: string[];
  /** SHA-256 of every entry before the trailer (archive-digest.ts); absent in version 1. */
  digest?: string;
  /** HMAC-SHA256 of `signedTrailerText` with the backup key; absent in version 1. */
  signature?: string;
};

/** What the signature covers: the trailer's fields, in a fixed order, the digest included. */
export function signedTrailerText(t: Trailer): string {
  return JSON.stringify({ format: FORMAT, version: FORMAT_VERSION, objects: t.objects, object_bytes: t.object_bytes, damaged: t.damaged, digest: t.digest });
}

/** What `backup` reports when done (the last line of its output). */
export type BackupSummary = { assets: number; versions: number; objects: number; dbLockedMs: number; damaged: string[]; /** The id of the key it is signed with. */ keyId: string };

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
