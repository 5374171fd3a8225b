import type { ObjectRecord, WriteCondition } from "../disk/objects";
import { evaluateConditions } from "../serve-object";
import { S3Error, s3Errors } from "./errors";

const unquote = (etag: string) => etag.trim().replace(/^W\//, "").replace(/"/g, "");

/**
 * S3's conditional writes (PutObject, CopyObject's destination, CompleteMultipartUpload):
 * `If-None-Match: *` creates only, `If-Match: "<etag>"` replaces only that object. S3 accepts
 * nothing but `*` in If-None-Match on a write; any other value asks for something it does not do.
 */
export function writeConditionOf(req: Request): WriteCondition | undefined {
  const ifNoneMatch = req.headers.get("if-none-match");
  const ifMatch = req.headers.get("if-match");
  if (ifNoneMatch === null && ifMatch === null) return undefined;
  if (ifNoneMatch !== null && ifNoneMatch.trim() !== "*") {
    throw s3Errors.notImplemented("If-None-Match on a write only accepts '*'.");
  }
  if (ifMatch !== null && !unquote(ifMatch)) throw s3Errors.invalidArgument("If-Match must name an ETag.");
  return { ifNoneMatch: ifNoneMatch !== null, ifMatch: ifMatch === null ? undefined : unquote(ifMatch) };
}

const COPY_SOURCE_CONDITIONS = {
  "if-match": "x-amz-copy-source-if-match",
  "if-none-match": "x-amz-copy-source-if-none-match",
  "if-modified-since": "x-amz-copy-source-if-modified-since",
  "if-unmodified-since": "x-amz-copy-source-if-unmodified-since",
} as const;

/**
 * CopyObject's and UploadPartCopy's conditions on the source (`x-amz-copy-source-if-*`), judged as
 * a GET judges its own: If-Match decides over If-Unmodified-Since, If-None-Match over
 * If-Modified-Since, and an If-Modified-Since after `now` is ignored. A copy has no "not modified"
 * answer, so every failed condition is 412, as S3 answers.
 */
export function checkCopySourceConditions(req: Request, source: ObjectRecord, now: Date): void {
  const verdict = evaluateConditions((name) => req.headers.get(COPY_SOURCE_CONDITIONS[name]), source, now);
  if (verdict !== "ok") {
    const failed = Object.values(COPY_SOURCE_CONDITIONS).filter((h) => req.headers.has(h));
    throw new S3Error("PreconditionFailed", "At least one of the pre-conditions you specified did not hold", 412, { Condition: failed.join(", ") });
  }
}
