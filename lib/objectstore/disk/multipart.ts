import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { isMissing, readJson, writeJsonAtomic } from "./atomic";
import type { StoredChecksum } from "./checksum-algorithms";
import { randomId, randomName, isValidId, type Layout } from "./layout";
import { withLock } from "./lock";
import { objectChecksumOrThrow, type UploadChecksum } from "./multipart-checksum";
import { MultipartError } from "./multipart-error";
import { commitObject, headObject, NoSuchBucketError, type CommitMode, type NewObject, type ObjectRecord, type StoredHeaders, type WriteCondition } from "./objects";
import { forgetUpload, notePartCommitted, wholeDigest } from "./part-digest";
import type { Received } from "./receive";

/** S3's floor for every part but the last. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
export const MAX_PART_NUMBER = 10_000;

export type UploadRecord = {
  uploadId: string;
  bucket: string;
  key: string;
  contentType: string;
  headers: StoredHeaders;
  userMetadata: Record<string, string>;
  initiated: string;
  /** The checksum every part is computed for and the object gets (x-amz-checksum-algorithm/-type at creation). */
  checksum?: UploadChecksum;
};

/** `checksum`: the part's own checksum (base64) of the upload's algorithm, when the upload has one. */
export type PartRecord = { partNumber: number; size: number; md5: string; lastModified: string; dataFile: string; checksum?: string };

export { MultipartError };

const noSuchUpload = () => new MultipartError("NoSuchUpload", "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.");

export async function createUpload(lay: Layout, init: Omit<UploadRecord, "uploadId" | "initiated">, now: Date): Promise<UploadRecord> {
  if (!(await headBucketMarker(lay, init.bucket))) throw new NoSuchBucketError(init.bucket);
  const upload: UploadRecord = { ...init, uploadId: randomId(), initiated: now.toISOString() };
  await fs.mkdir(lay.uploadDir(upload.uploadId), { recursive: true });
  await writeJsonAtomic(lay, path.join(lay.uploadDir(upload.uploadId), "upload.json"), upload);
  return upload;
}

async function headBucketMarker(lay: Layout, bucket: string) {
  return (await readJson(lay.bucketMarker(bucket))) !== null;
}

/** The upload, if it exists and belongs to this bucket and key (an id is only valid for its own object). */
export async function getUpload(lay: Layout, bucket: string, key: string, uploadId: string): Promise<UploadRecord | null> {
  if (!isValidId(uploadId)) return null;
  const upload = await readJson<UploadRecord>(path.join(lay.uploadDir(uploadId), "upload.json"));
  return upload && upload.bucket === bucket && upload.key === key ? upload : null;
}

/**
 * A part is one file named `<n>.<md5>.<rand>[.<checksum>].part` in its upload's folder (the
 * checksum, in hex, of the upload's algorithm when it has one): the name carries what a separate
 * record would, so renaming the received file into the folder is the whole commit (one rename per
 * part and no second flush, which matters at hundreds of parts per upload).
 */
const PART_FILE = /^(\d+)\.([0-9a-f]{32})\.[0-9a-f]+(?:\.([0-9a-f]{8,64}))?\.part$/;

async function readParts(dir: string): Promise<PartRecord[]> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (err) {
    if (isMissing(err)) throw noSuchUpload();
    throw err;
  }
  const parts: PartRecord[] = [];
  for (const name of names) {
    const m = PART_FILE.exec(name);
    if (!m) continue;
    const stat = await fs.stat(path.join(dir, name)).catch(() => null);
    const checksum = m[3] ? { checksum: Buffer.from(m[3], "hex").toString("base64") } : {};
    if (stat) parts.push({ partNumber: Number(m[1]), md5: m[2], size: stat.size, lastModified: stat.mtime.toISOString(), dataFile: name, ...checksum });
  }
  return parts.sort((a, b) => a.partNumber - b.partNumber);
}

/** Files a fully received part; a part sent again under the same number replaces the earlier one. */
export async function commitPart(lay: Layout, upload: UploadRecord, partNumber: number, received: Received, now: Date): Promise<PartRecord> {
  const dir = lay.uploadDir(upload.uploadId);
  return withLock(`upload:${upload.uploadId}`, async () => {
    let previous: string[];
    try {
      await fs.access(path.join(dir, "upload.json"));
      previous = (await fs.readdir(dir)).filter((name) => Number(PART_FILE.exec(name)?.[1]) === partNumber);
    } catch {
      await fs.rm(received.path, { force: true });
      throw noSuchUpload();
    }
    const md5 = received.md5.toString("hex");
    const checksum = upload.checksum && received.checksum ? received.checksum : null;
    const dataFile = `${partNumber}.${md5}.${randomName()}${checksum ? `.${checksum.toString("hex")}` : ""}.part`;
    // The bytes were flushed before this rename. The rename itself is not flushed here: after a
    // crash the part is either listed, with its bytes, or missing and sent again. Completion
    // flushes the object's folder, which makes the assembled object durable.
    await fs.rename(received.path, path.join(dir, dataFile));
    for (const name of previous) await fs.rm(path.join(dir, name), { force: true });
    notePartCommitted(upload.uploadId, partNumber, path.join(dir, dataFile), upload.checksum?.type === "FULL_OBJECT" ? upload.checksum.algorithm : null);
    return { partNumber, size: received.size, md5, lastModified: now.toISOString(), dataFile, ...(checksum ? { checksum: checksum.toString("base64") } : {}) };
  });
}

export async function listParts(lay: Layout, upload: UploadRecord): Promise<PartRecord[]> {
  return withLock(`upload:${upload.uploadId}`, () => readParts(lay.uploadDir(upload.uploadId)));
}

/**
 * Makes the listed parts the object. The parts' files become the object's segments as they are
 * (moved, not copied: every byte is written to disk once); the whole object's md5 is computed from
 * them first, and the object is committed only then. Parts not listed are discarded with the upload.
 * Once completed the upload is gone: its part URLs answer NoSuchUpload from then on. A completion
 * refused by `create-only` (another object at the key) leaves the upload and its parts as they were.
 * The object's record names the upload that produced it (`completedUploadId`, written in the same
 * atomic rename as the object), so a completion sent again is recognised (`completedUpload`).
 */
export async function completeUpload(
  lay: Layout,
  upload: UploadRecord,
  requested: RequestedPart[],
  now: Date,
  mode: CommitMode = "overwrite",
  expectedChecksum: string | null = null,
  condition?: WriteCondition,
): Promise<ObjectRecord> {
  return withLock(`upload:${upload.uploadId}`, async () => {
    const dir = lay.uploadDir(upload.uploadId);
    const stored = new Map((await readParts(dir)).map((p) => [p.partNumber, p]));
    const chosen = choosePartsOrThrow(requested, stored);
    const files = chosen.map((p) => ({ path: path.join(dir, p.dataFile), size: p.size }));
    const partsDigest = crypto.createHash("md5");
    for (const part of chosen) partsDigest.update(Buffer.from(part.md5, "hex"));
    const whole = await wholeDigest(upload.uploadId, files, upload.checksum?.type === "FULL_OBJECT" ? upload.checksum.algorithm : null);
    const checksum: StoredChecksum | undefined = await objectChecksumOrThrow(upload.checksum, chosen, whole.checksum, expectedChecksum);
    const object: NewObject = {
      size: chosen.reduce((sum, p) => sum + p.size, 0),
      md5: whole.md5,
      etag: `${partsDigest.digest("hex")}-${chosen.length}`,
      contentType: upload.contentType,
      headers: upload.headers,
      userMetadata: upload.userMetadata,
      completedUploadId: upload.uploadId,
      checksum,
    };
    const record = await commitObject(lay, upload.bucket, upload.key, files, object, now, mode, condition);
    await fs.rm(dir, { recursive: true, force: true });
    forgetUpload(upload.uploadId);
    return record;
  });
}

/**
 * The object a completed upload produced, while it is still the object at its key: S3 answers a
 * completion sent again (a client retrying after a lost answer) with the same result. Once the key
 * is overwritten or deleted, the upload is unknown again (NoSuchUpload). Folder leftovers of a
 * completion cut short after its commit (a crash before the upload's folder was removed) go now.
 */
export async function completedUpload(lay: Layout, bucket: string, key: string, uploadId: string): Promise<ObjectRecord | null> {
  if (!isValidId(uploadId)) return null;
  const record = await headObject(lay, bucket, key);
  if (!record || record.completedUploadId !== uploadId) return null;
  await withLock(`upload:${uploadId}`, () => fs.rm(lay.uploadDir(uploadId), { recursive: true, force: true }));
  forgetUpload(uploadId);
  return record;
}

/** A part as CompleteMultipartUpload names it; `checksum`: its Checksum<ALGORITHM> element, if sent. */
export type RequestedPart = { partNumber: number; etag: string; checksum?: string };

function choosePartsOrThrow(requested: RequestedPart[], stored: Map<number, PartRecord>): PartRecord[] {
  const chosen: PartRecord[] = [];
  let last = 0;
  for (const { partNumber, etag, checksum } of requested) {
    if (partNumber <= last) throw new MultipartError("InvalidPartOrder", "The list of parts was not in ascending order. Parts must be ordered by part number.");
    last = partNumber;
    const part = stored.get(partNumber);
    if (!part || part.md5 !== etag.replace(/"/g, "").toLowerCase() || (checksum !== undefined && part.checksum !== undefined && checksum !== part.checksum)) {
      throw new MultipartError("InvalidPart", `Part ${partNumber} could not be found, or its ETag (or checksum) does not match. Upload the part, then list the parts to get its ETag.`);
    }
    chosen.push(part);
  }
  if (!chosen.length) throw new MultipartError("InvalidPart", "The request named no parts.");
  const small = chosen.slice(0, -1).find((p) => p.size < MIN_PART_BYTES);
  if (small) throw new MultipartError("EntityTooSmall", `Part ${small.partNumber} is ${small.size} bytes; every part but the last must be at least ${MIN_PART_BYTES} bytes.`);
  return chosen;
}

export async function abortUpload(lay: Layout, upload: UploadRecord): Promise<void> {
  await withLock(`upload:${upload.uploadId}`, () => fs.rm(lay.uploadDir(upload.uploadId), { recursive: true, force: true }));
  forgetUpload(upload.uploadId);
}

/** Uploads in progress for a bucket, oldest first (ListMultipartUploads). */
export async function listUploads(lay: Layout, bucket: string): Promise<UploadRecord[]> {
  let ids: string[];
  try {
    ids = await fs.readdir(lay.uploadsDir);
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
  const uploads: UploadRecord[] = [];
  for (const id of ids) {
    const upload = await readJson<UploadRecord>(path.join(lay.uploadDir(id), "upload.json"));
    if (upload?.bucket === bucket) uploads.push(upload);
  }
  return uploads.sort((a, b) => (a.key === b.key ? a.initiated.localeCompare(b.initiated) : a.key < b.key ? -1 : 1));
}
