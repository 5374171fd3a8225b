import { S3Error } from "./errors";

/**
 * `x-amz-storage-class` on PutObject, CopyObject and CreateMultipartUpload. The store keeps every
 * object in one class, STANDARD (what its listings name), so a request for STANDARD is served and
 * any other class is refused with S3's answer for a class it will not store (400
 * InvalidStorageClass), rather than accepted and silently kept as STANDARD. Answers whether the
 * request named a class: on S3, naming one, even the object's own, is what makes copying an
 * object onto itself a change.
 */
export function storageClassNamed(req: Request): boolean {
  const value = req.headers.get("x-amz-storage-class");
  if (value === null) return false;
  if (value.trim() !== "STANDARD") throw new S3Error("InvalidStorageClass", "The storage class you specified is not valid", 400, { StorageClassRequested: value.trim() });
  return true;
}
