import crypto from "node:crypto";
import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import tar from "tar-stream";
import type { ObjectRecord } from "../objectstore/disk/objects";
import { ArchiveDigest } from "./archive-digest";
import { checkRestoredDatabase, type DatabaseCheck } from "./check-database";
import { checkEntryName, checkRecord, RestoreError } from "./check-entry";
import { decompressor } from "./compression";
import { compressionOf, FORMAT, FORMAT_VERSION, MANIFEST_ENTRY, signedTrailerText, TRAILER_ENTRY, UNSIGNED_FORMAT_VERSION, type Manifest, type Trailer } from "./format";
import { BACKUP_KEY_FILE, backupKeyText, signatureHolds, type BackupKey } from "./signing-key";

export { RestoreError } from "./check-entry";

/**
 * What a restore trusts an archive by: the backup key it must be signed with (kept by the
 * operator, signing-key.ts), or, with `withoutKey`, nothing but its own consistency (its digest,
 * each object's md5, the database's md5s): for an archive made before backups were signed, or
 * when the key was lost. A forger who rewrites the database files as well is caught only by the key.
 */
export type RestoreTrust = { key: BackupKey | null; withoutKey?: boolean };

export type RestoreResult = { manifest: Manifest; trailer: Trailer; bytes: number; signed: boolean; database: DatabaseCheck };

/** Manifests, trailers and object records are small; anything larger is not one. */
const MAX_JSON_ENTRY = 1024 * 1024;

/**
 * `restore <file> --data-dir <dir>`: lays an archive (format.ts) out as a data dir. The dir must be
 * empty or missing; a non-empty one is refused before anything is read. Everything is written to a
 * folder beside it and renamed into place at the end, so a failed restore leaves no half data dir.
 *
 * The archive is not trusted: only files and folders under pg/ and objects/ are accepted (no link,
 * device or absolute or `..` name; check-entry.ts), each object's record must name data files of
 * its own that follow it, and each object's bytes must match the md5 its record holds. The trailer
 * must be there and agree, or the archive was cut short; its digest must be that of the entries
 * read, and its signature must hold for the operator's key (`trust`), or the archive was altered
 * or made by another instance. Last, the restored database is opened and every original it names
 * must match its size and md5 (check-database.ts). Only then is the dir put in place.
 */
export async function restoreArchive(file: string, dir: string, onProgress?: (bytes: number) => void, trust: RestoreTrust = { key: null }): Promise<RestoreResult> {
  const target = path.resolve(dir);
  await refuseUnlessEmpty(target);
  const head = await readHead(file);
  await fs.mkdir(path.dirname(target), { recursive: true });
  const staging = path.join(path.dirname(target), `.${path.basename(target)}.restoring-${crypto.randomBytes(6).toString("hex")}`);
  await fs.mkdir(staging, { mode: 0o700 });
  try {
    const codec = decompressor(compressionOf(head));
    const extract = tar.extract();
    let read = 0;
    const source = createReadStream(file, { highWaterMark: 1024 * 1024 }).on("data", (chunk) => onProgress?.((read += chunk.length)));
    const feeding = pipeline([source, ...(codec ? [codec.stream] : []), extract]);
    const laying = layOut(extract, staging, trust).catch((err: unknown) => {
      extract.destroy();
      throw err;
    });
    const [fed, laid] = await Promise.allSettled([feeding, laying]);
    if (laid.status === "rejected") throw unreadable(laid.reason);
    if (fed.status === "rejected") throw unreadable(fed.reason);
    await codec?.done;
    await fs.mkdir(path.join(staging, "objects"), { recursive: true, mode: 0o700 });
    const database = await checkRestoredDatabase(staging);
    // The restored instance signs its next backups with the key this one was checked with.
    if (trust.key && laid.value.signed) await writeBytes(path.join(staging, BACKUP_KEY_FILE), Buffer.from(backupKeyText(trust.key)));
    // Checked again: something may have been put there while the archive was read.
    await refuseUnlessEmpty(target);
    // Only ever an empty dir (rmdir refuses anything else): rename cannot replace a non-empty one.
    await fs.rmdir(target).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "ENOENT") throw err;
    });
    await fs.rename(staging, target);
    return { ...laid.value, bytes: read, database };
  } catch (err) {
    await fs.rm(staging, { recursive: true, force: true });
    throw err;
  }
}

/** The tar parser's errors (no code) and zlib's (Z_…) mean a damaged or cut archive; system errors stay what they are. */
function unreadable(err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException).code;
  if (err instanceof RestoreError || (code && !code.startsWith("Z_"))) return err;
  return new RestoreError(`the archive could not be read (cut short or damaged?): ${(err as Error).message}`);
}

async function refuseUnlessEmpty(target: string) {
  let names: string[];
  try {
    names = await fs.readdir(target);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return;
    if (code === "ENOTDIR") throw new RestoreError(`${target} is a file, not a directory`);
    throw err;
  }
  if (names.length) throw new RestoreError(`${target} is not empty: restore only into an empty or missing directory`);
}

async function readHead(file: string): Promise<Buffer> {
  const fh = await fs.open(file, "r").catch((err: NodeJS.ErrnoException) => {
    throw new RestoreError(`cannot read ${file}: ${err.code === "ENOENT" ? "no such file" : err.message}`);
  });
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await fh.read(head, 0, 4, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/** One entry of the archive being read (tar-stream does not export the type by name). */
type TarEntry = tar.Extract extends AsyncIterable<infer T> ? T : never;

type PendingObject = { record: ObjectRecord; dir: string; next: number; md5: crypto.Hash };

/** Writes every entry under `staging`, checking each (see restoreArchive). */
async function layOut(extract: tar.Extract, staging: string, trust: RestoreTrust): Promise<Omit<RestoreResult, "bytes" | "database">> {
  let manifest: Manifest | null = null;
  let trailer: Trailer | null = null;
  let pending: PendingObject | null = null;
  let objects = 0;
  const digest = new ArchiveDigest();
  for await (const entry of extract) {
    const { header } = entry;
    const name = checkEntryName(header.name, header.type);
    if (trailer) throw new RestoreError(`${name} follows the end of the archive`);
    if (name === TRAILER_ENTRY && manifest) {
      if (pending) throw new RestoreError(`the archive ends before the data of object ${pending.record.key}`);
      trailer = await readJsonEntry<Trailer>(entry, header.size);
      continue;
    }
    digest.entry(header.name, header.type ?? "file", header.size ?? 0);
    if (!manifest) {
      if (name !== MANIFEST_ENTRY) throw new RestoreError(`not an Easel backup: it starts with ${name}, not ${MANIFEST_ENTRY}`);
      manifest = await readJsonEntry<Manifest>(entry, header.size, digest);
      checkManifest(manifest, trust);
      continue;
    }
    const abs = path.join(staging, name);
    if (header.type === "directory") {
      await fs.mkdir(abs, { recursive: true, mode: 0o700 });
      entry.resume();
      continue;
    }
    await fs.mkdir(path.dirname(abs), { recursive: true, mode: 0o700 });
    if (name.startsWith("pg/") || name.endsWith("/.bucket.json")) {
      if (pending) throw new RestoreError(`${name} comes where the data of object ${pending.record.key} should`);
      await writeEntry(entry, abs, digest);
      continue;
    }
    if (name.endsWith(".json")) {
      if (pending) throw new RestoreError(`${name} comes where the data of object ${pending.record.key} should`);
      const record = checkRecord(name, await readJsonEntry<ObjectRecord>(entry, header.size, digest));
      await writeBytes(abs, Buffer.from(JSON.stringify(record)));
      pending = { record, dir: path.dirname(name), next: 0, md5: crypto.createHash("md5") };
    } else {
      const segment = pending?.record.segments[pending.next];
      if (!pending || !segment || `${pending.dir}/${segment.file}` !== name || segment.size !== header.size) throw new RestoreError(`${name} is not the next data file of an object record`);
      await writeEntry(entry, abs, digest, pending.md5);
      pending.next++;
    }
    if (pending && pending.next === pending.record.segments.length) {
      const md5 = pending.md5.digest("hex");
      if (md5 !== pending.record.md5) throw new RestoreError(`object ${pending.record.key}: its bytes have md5 ${md5}, its record says ${pending.record.md5} (a damaged archive)`);
      objects++;
      pending = null;
    }
  }
  if (!manifest) throw new RestoreError("the archive is empty");
  if (!trailer) throw new RestoreError("the archive was cut short: its last entry is missing");
  if (trailer.objects !== objects) throw new RestoreError(`the archive holds ${objects} objects, its trailer says ${trailer.objects}`);
  const signed = checkTrailer(manifest, trailer, digest.hex(), trust);
  return { manifest, trailer, signed };
}

/** Refuses, before anything else is read, an archive of another format, or one the trust given cannot vouch for. */
function checkManifest(manifest: Manifest, trust: RestoreTrust) {
  if (manifest.format !== FORMAT || (manifest.version !== FORMAT_VERSION && manifest.version !== UNSIGNED_FORMAT_VERSION)) {
    throw new RestoreError(`not a backup this version of Easel restores (${manifest.format} v${manifest.version})`);
  }
  if (manifest.version === UNSIGNED_FORMAT_VERSION) {
    if (!trust.withoutKey) throw new RestoreError("this archive was made by an earlier Easel and carries no signature: restore it with --without-key (its objects are then checked against its database only), or restore it with the Easel that made it and make a new, signed backup");
    return;
  }
  if (trust.withoutKey) return;
  if (!trust.key) throw new RestoreError("no backup key to check this archive's signature with: give the backup.key kept from the data dir that made it (--key-file), or restore with --without-key");
  if (manifest.key_id !== trust.key.id) throw new RestoreError(`this archive is signed with another key (id ${String(manifest.key_id)}) than the one given (id ${trust.key.id}): it was made by another Easel instance, or the key is the wrong one`);
}

/** The trailer's digest must be that of the entries read, and its signature must hold; returns whether it was checked against a key. */
function checkTrailer(manifest: Manifest, trailer: Trailer, digest: string, trust: RestoreTrust): boolean {
  if (manifest.version === UNSIGNED_FORMAT_VERSION) return false;
  if (trailer.digest !== digest) throw new RestoreError("the archive's entries are not the ones its trailer lists (their digest differs): a damaged or altered archive");
  if (trust.withoutKey || !trust.key) return false;
  if (!signatureHolds(trust.key, signedTrailerText(trailer), trailer.signature)) throw new RestoreError("the archive's signature does not hold for this key: an altered archive");
  return true;
}

async function readJsonEntry<T>(entry: TarEntry, size: number | undefined, digest?: ArchiveDigest): Promise<T> {
  if ((size ?? 0) > MAX_JSON_ENTRY) throw new RestoreError(`${entry.header.name} is too large for what it claims to be`);
  const chunks: Buffer[] = [];
  for await (const chunk of entry) {
    chunks.push(chunk as Buffer);
    digest?.update(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as T;
  } catch {
    throw new RestoreError(`${entry.header.name} is not valid JSON`);
  }
}

/** One file, created (never replaced: an archive naming a file twice is refused) and owner-only. */
async function writeEntry(entry: TarEntry, abs: string, digest: ArchiveDigest, md5?: crypto.Hash) {
  const fh = await create(abs);
  try {
    for await (const data of entry) {
      const chunk = data as Buffer;
      digest.update(chunk);
      md5?.update(chunk);
      await fh.write(chunk);
    }
  } finally {
    await fh.close();
  }
}

async function writeBytes(abs: string, bytes: Buffer) {
  const fh = await create(abs);
  try {
    await fh.write(bytes);
  } finally {
    await fh.close();
  }
}

function create(abs: string) {
  return fs.open(abs, "wx", 0o600).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "EEXIST") throw new RestoreError(`the archive holds ${abs} twice`);
    throw err;
  });
}
