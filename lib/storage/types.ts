/**
 * The one interface every storage backend implements: the S3 driver (AWS S3 and compatibles, or the
 * embedded store's S3 endpoint) and the GCS driver (Google Cloud Storage, or the embedded store's
 * GCS endpoint). Upload code uses nothing else.
 */
export type PreparedUpload = {
  uploadUrl: string;
  multipartUploadId: string | null;
  partSize: number | null;
  partUrls: string[] | null;
  /** s3 multipart: a presigned ListParts URL, so a client resuming after a reload sends only the parts storage lacks. */
  listPartsUrl: string | null;
};
export type ObjectInfo = { size: number; etag: string; contentType: string | null };

export interface StorageDriver {
  readonly kind: "s3" | "gcs";
  /** s3: single presigned PUT below 5 MiB (5,242,880 bytes); at or above: CreateMultipartUpload + presigned UploadPart URLs, part size 8 MiB (8,388,608), last part smaller. gcs: a signed URL to POST with x-goog-resumable: start. */
  prepareUpload(input: { key: string; size: number; contentType: string; expiresAt: Date }): Promise<PreparedUpload>;
  /** Lists the parts itself (clients send no ETags) and completes; throws DomainError("storage_object_not_found") when a part 1..expectedParts is missing. */
  completeMultipart(input: { key: string; uploadId: string; expectedParts: number }): Promise<void>;
  abortMultipart(input: { key: string; uploadId: string }): Promise<void>;
  head(key: string): Promise<ObjectInfo | null>;
  /** md5 of the object's bytes as 32 lowercase hex digits (the embedded store computes it while streaming; real S3/GCS: read and hash). */
  md5(key: string): Promise<string>;
  read(key: string, range?: { start: number; end?: number }): Promise<ReadableStream<Uint8Array>>;
  write(key: string, body: Buffer | ReadableStream<Uint8Array>, contentType: string): Promise<void>;
  copy(fromKey: string, toKey: string): Promise<void>;
  delete(key: string): Promise<void>;
  signedReadUrl(key: string, opts: { expiresInSeconds: number; responseContentType?: string }): Promise<string>;
}
