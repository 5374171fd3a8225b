import type { UploadSession } from "../db/schema";
import { DomainError } from "../errors";
import { partCount } from "../storage/limits";
import type { StorageDriver } from "../storage/types";

export type ReceivedBytes = { key: string; size: number; md5: string; mediaType: string };

/**
 * Makes the uploaded bytes a whole object and checks them: completes a multipart upload (listing
 * the parts itself), confirms the object exists, compares its size with the `size` declared at
 * prepare and its md5 with the declared md5. A retry after a completed multipart finds the object
 * and skips the completion.
 *
 * A refusal leaves the session pending and makes nothing. The upload URL cannot replace bytes at
 * its key once they are stored (the store creates, never replaces, through it), so a client whose
 * bytes were wrong prepares a new upload and sends them there.
 */
export async function receiveBytes(storage: StorageDriver, session: UploadSession, multipartUploadId?: string): Promise<ReceivedBytes> {
  if (session.multipartUploadId) {
    if (multipartUploadId !== undefined && multipartUploadId !== session.multipartUploadId) {
      throw new DomainError("validation_failed", "multipart_upload_id does not belong to this upload", { field: "multipart_upload_id" });
    }
    if (!(await storage.head(session.storageKey))) {
      await storage.completeMultipart({
        key: session.storageKey,
        uploadId: session.multipartUploadId,
        expectedParts: partCount(session.size),
      });
    }
  }
  const info = await storage.head(session.storageKey);
  if (!info) throw new DomainError("storage_object_not_found", "The file is not in storage: upload the bytes first");
  if (info.size !== session.size) {
    throw new DomainError("size_mismatch", `The uploaded file has ${info.size} bytes; upload_prepare declared ${session.size}`, { expected_size: session.size, actual_size: info.size });
  }
  const md5 = await storage.md5(session.storageKey);
  if (session.md5 && session.md5 !== md5) {
    throw new DomainError("checksum_mismatch", "The uploaded bytes do not match the md5 given at upload_prepare", { expected_md5: session.md5, actual_md5: md5 });
  }
  return { key: session.storageKey, size: info.size, md5, mediaType: session.mediaType };
}
