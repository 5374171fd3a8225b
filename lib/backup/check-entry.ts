import crypto from "node:crypto";
import path from "node:path";
import { isValidBucketName } from "../objectstore/disk/layout";
import type { ObjectRecord } from "../objectstore/disk/objects";
import { MANIFEST_ENTRY, TRAILER_ENTRY } from "./format";

/** The archive is not one restore accepts; nothing was restored. */
export class RestoreError extends Error {}

const DATA_FILE = /^([0-9a-f]{64})\.[0-9a-f]+(\.\d{1,5})?\.data$/;
const RECORD = /^objects\/([^/]+)\/([0-9a-f]{2})\/([0-9a-f]{64})\.json$/;

/**
 * An entry's name, if a restore may write it: a file or folder, relative, without `.` or `..`
 * parts, under pg/ or objects/ (or the archive's own manifest and trailer). Links (symbolic or
 * hard), devices and FIFOs are refused whatever their name: an archive could otherwise point a
 * later entry, or the restored server, outside the data dir.
 */
export function checkEntryName(raw: string, type: string | null | undefined): string {
  if (type !== "file" && type !== "directory") throw new RestoreError(`the archive holds ${JSON.stringify(raw)} of type ${type ?? "unknown"}; only files and folders are restored`);
  const name = type === "directory" ? raw.replace(/\/+$/, "") : raw;
  const parts = name.split("/");
  const unsafe = !name || name.includes("\0") || name.includes("\\") || name.startsWith("/") || parts.some((p) => p === "" || p === "." || p === "..");
  if (unsafe) throw new RestoreError(`the archive holds an entry named ${JSON.stringify(raw)}, which could land outside the data dir`);
  if (name === MANIFEST_ENTRY || name === TRAILER_ENTRY) {
    if (type !== "file") throw new RestoreError(`${name} is not a file`);
    return name;
  }
  if (parts[0] === "pg") return name;
  if (parts[0] === "objects") {
    if (parts.length >= 2 && !isValidBucketName(parts[1])) throw new RestoreError(`the archive holds objects of ${JSON.stringify(parts[1])}, which is not a bucket name`);
    if (type === "directory") return name;
    const fileName = parts.at(-1)!;
    if (parts.length === 3 && fileName === ".bucket.json") return name;
    if (parts.length === 4 && /^[0-9a-f]{2}$/.test(parts[2]) && (RECORD.test(name) || DATA_FILE.test(fileName))) return name;
  }
  throw new RestoreError(`the archive holds ${JSON.stringify(raw)}, which is no part of an Easel data dir`);
}

/**
 * An object record from the archive, if it is one the store would have written: filed under the
 * hash of its key, naming data files of its own (in its folder), whose sizes add up to its size.
 * The restored server trusts records to say which files to serve.
 */
export function checkRecord(name: string, record: ObjectRecord): ObjectRecord {
  const [, , shard, hash] = RECORD.exec(name) ?? [];
  const bad = (why: string) => new RestoreError(`${name} is not an object record the store wrote: ${why}`);
  if (!hash || typeof record?.key !== "string") throw bad("no key");
  if (crypto.createHash("sha256").update(record.key).digest("hex") !== hash || hash.slice(0, 2) !== shard) throw bad("it is not filed under its key");
  if (!Array.isArray(record.segments) || typeof record.size !== "number" || typeof record.md5 !== "string") throw bad("no size, md5 or data files");
  let total = 0;
  for (const s of record.segments) {
    if (typeof s?.file !== "string" || typeof s.size !== "number" || s.size < 0 || path.basename(s.file) !== s.file || DATA_FILE.exec(s.file)?.[1] !== hash) throw bad(`it names ${JSON.stringify(s?.file)}`);
    total += s.size;
  }
  if (total !== record.size) throw bad(`its data files hold ${total} bytes, its size is ${record.size}`);
  return record;
}
