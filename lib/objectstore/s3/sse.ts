import { s3Errors } from "./errors";

/**
 * The embedded store does not encrypt what it keeps, so a request asking for server-side
 * encryption (SSE-S3, SSE-KMS, or SSE-C with the client's own key, for the object or a copy's
 * source) is refused rather than stored as plaintext under a promise it did not keep. Nothing is
 * read or written: the check runs before any operation.
 */
const SSE_HEADER = /^x-amz-(copy-source-)?server-side-encryption/;

export function refuseServerSideEncryption(req: Request): void {
  const asked: string[] = [];
  req.headers.forEach((_value, name) => {
    if (SSE_HEADER.test(name)) asked.push(name);
  });
  if (asked.length) {
    throw s3Errors.notImplemented(`Server-side encryption is not supported by this store (${asked.sort().join(", ")}); send the request without it.`);
  }
}
