import crypto from "node:crypto";
import path from "node:path";

/**
 * Where the embedded object store keeps its files, all under one root (`${EASEL_DATA_DIR}/objects`):
 *
 *   <bucket>/.bucket.json                      the bucket exists (S3 bucket names never start with ".")
 *   <bucket>/<hh>/<sha256(key)>.json           an object's record: the commit point of a write
 *   <bucket>/<hh>/<sha256(key)>.<rand>[.<n>].data    its bytes (one file, or one per multipart part), named by the record
 *   .uploads/<uploadId>/upload.json, <n>.<md5>.<rand>[.<checksum>].part   S3 multipart uploads
 *   .sessions/<sessionId>/session.json, data   GCS resumable sessions
 *   .tmp/                                      bytes being received, renamed into place when complete
 *
 * Objects are filed under the hash of their key, so any key (up to S3's 1024 bytes, any
 * characters, "a" beside "a/b") maps to a short, safe file name.
 */
export type Layout = ReturnType<typeof layout>;

export function layout(root: string) {
  return {
    root,
    tmpDir: path.join(root, ".tmp"),
    uploadsDir: path.join(root, ".uploads"),
    sessionsDir: path.join(root, ".sessions"),
    bucketDir: (bucket: string) => path.join(root, bucket),
    bucketMarker: (bucket: string) => path.join(root, bucket, ".bucket.json"),
    objectDir: (bucket: string, key: string) => path.join(root, bucket, keyHash(key).slice(0, 2)),
    objectRecord: (bucket: string, key: string) => path.join(root, bucket, keyHash(key).slice(0, 2), `${keyHash(key)}.json`),
    uploadDir: (uploadId: string) => path.join(root, ".uploads", uploadId),
    sessionDir: (sessionId: string) => path.join(root, ".sessions", sessionId),
    tmpFile: () => path.join(root, ".tmp", randomName()),
  };
}

export function keyHash(key: string): string {
  return crypto.createHash("sha256").update(key).digest("hex");
}

export function randomName(): string {
  return crypto.randomBytes(12).toString("hex");
}

/** Unguessable identifiers (multipart upload ids, resumable session ids): 192 random bits. */
export function randomId(): string {
  return crypto.randomBytes(24).toString("base64url");
}

/** S3 bucket naming rules (the subset that matters for a path-style store). */
export function isValidBucketName(name: string): boolean {
  return /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) && !name.includes("..") && !/^\d+\.\d+\.\d+\.\d+$/.test(name);
}

/** Ids come from URLs: refuse anything that could step outside its folder. */
export function isValidId(id: string): boolean {
  return /^[A-Za-z0-9_-]{16,64}$/.test(id);
}
