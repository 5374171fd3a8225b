/*
 * The upload size numbers, in one place for the server (prepare, complete, the drivers), the
 * assistant's ingest and the browser uploader alike. The browser bundle imports this file, so it
 * imports nothing (lib/storage/limits.test.ts keeps it so).
 */

/** Uploads of this size and above are multipart on S3 (contract §4). */
export const MULTIPART_THRESHOLD = 5 * 1024 * 1024;
/** Bytes per part of an Easel multipart upload; the last part is smaller. */
export const PART_SIZE = 8 * 1024 * 1024;
/** Longest lifetime of a presigned URL, S3's and GCS's limit alike. */
export const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

export function partCount(size: number): number {
  return Math.max(1, Math.ceil(size / PART_SIZE));
}

/** Seconds from now until `expiresAt`, within what presigned URLs allow. */
export function presignSeconds(expiresAt: Date, now: Date): number {
  return Math.min(MAX_PRESIGN_SECONDS, Math.max(1, Math.ceil((expiresAt.getTime() - now.getTime()) / 1000)));
}
