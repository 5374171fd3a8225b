import fs from "node:fs/promises";
import { safeDecode } from "../canonical";
import { checkWriteCondition, commitObject, currentRecord, deleteObject, headObject, openObject, type ObjectRecord } from "../disk/objects";
import { receiveToTemp } from "../disk/receive";
import { mailSafe } from "../header-text";
import { serveObject } from "../serve-object";
import { xmlDocument } from "../xml";
import { MAX_PUT_BYTES, objectMetadataFrom, receiveObjectBody } from "./body";
import { commitModeOf, type S3Call } from "./call";
import { checksumElements, checksumResponseHeaders } from "./checksum-headers";
import { refuseCrossWorkspaceCopy } from "./copy-scope";
import { S3Error, s3Errors } from "./errors";
import { copyChecksum, keptChecksum, servedChecksumHeaders } from "./object-checksums";
import { partRange } from "./part-number";
import { storageClassNamed } from "./storage-class";
import { checkCopySourceConditions, writeConditionOf } from "./write-conditions";
import { xmlAnswer } from "./xml-answer";

export const quoted = (etag: string) => `"${etag}"`;

/**
 * PUT /bucket/key: the body becomes the object once all of it is on disk. A conditional write
 * (If-None-Match / If-Match) is looked at before the body is read, so a doomed upload is refused
 * without receiving it, and judged again at the commit, under the object's lock.
 */
export async function putObject(call: S3Call): Promise<Response> {
  const { lay, req, bucket, key, payload, now } = call;
  storageClassNamed(req);
  const meta = objectMetadataFrom(req);
  const condition = writeConditionOf(req);
  if (condition) checkWriteCondition(key, await currentRecord(lay, bucket, key), condition);
  const received = await receiveObjectBody(lay, req, payload);
  const md5 = received.md5.toString("hex");
  const checksum = keptChecksum(received);
  const record = await commitObject(lay, bucket, key, [received], { ...meta, size: received.size, md5, etag: md5, checksum }, now, commitModeOf(call), condition).catch(async (err) => {
    await fs.rm(received.path, { force: true });
    throw err;
  });
  return new Response(null, { status: 200, headers: { ETag: quoted(record.etag), ...checksumResponseHeaders(checksum) } });
}

/**
 * PUT /bucket/key with x-amz-copy-source: a server-side copy, streamed like an upload. The
 * source's conditions (`x-amz-copy-source-if-*`) are judged on the record that is then read, the
 * destination's (If-None-Match / If-Match) at the commit. A copy onto itself rewrites the object
 * (its bytes, metadata as directed, a checksum asked for) under a new Last-Modified.
 */
export async function copyObject(call: S3Call): Promise<Response> {
  const { lay, req, bucket, key, now } = call;
  const source = parseCopySource(req.headers.get("x-amz-copy-source") ?? "");
  refuseCrossWorkspaceCopy(source, { bucket, key });
  const condition = writeConditionOf(req);
  const replace = req.headers.get("x-amz-metadata-directive") === "REPLACE";
  const storageClass = storageClassNamed(req);
  // Copying an object onto itself must change something S3 counts: its metadata (REPLACE) or its
  // storage class (named, even as the class it has). A new checksum algorithm alone is not one of
  // them, so S3 refuses that too; named with either, the copy computes it.
  if (source.bucket === bucket && source.key === key && !replace && !storageClass) {
    throw new S3Error(
      "InvalidRequest",
      "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
      400,
    );
  }
  if (condition) checkWriteCondition(key, await currentRecord(lay, bucket, key), condition);
  const opened = await openObject(lay, source.bucket, source.key);
  if (!opened) throw s3Errors.noSuchKey(source.key);
  let sum: ReturnType<typeof copyChecksum>;
  try {
    checkCopySourceConditions(req, opened.record, now);
    sum = copyChecksum(req, opened.record);
  } catch (err) {
    opened.stream.destroy();
    throw err;
  }
  let received;
  try {
    received = await receiveToTemp(lay, opened.stream, { maxBytes: MAX_PUT_BYTES, expectedLength: opened.record.size, sha256: false, checksum: sum.compute });
  } finally {
    opened.stream.destroy();
  }
  const meta = replace ? objectMetadataFrom(req) : { contentType: opened.record.contentType, headers: opened.record.headers, userMetadata: opened.record.userMetadata };
  const md5 = received.md5.toString("hex");
  const checksum = sum.kept ?? keptChecksum({ ...received, checksumAlgorithm: sum.compute });
  const record = await commitObject(lay, bucket, key, [received], { ...meta, size: received.size, md5, etag: md5, checksum }, now, commitModeOf(call), condition).catch(async (err) => {
    await fs.rm(received.path, { force: true });
    throw err;
  });
  const body = xmlDocument("CopyObjectResult", { LastModified: record.lastModified, ETag: quoted(record.etag), ...checksumElements(record.checksum) });
  return xmlAnswer(body);
}

/** `x-amz-copy-source`: `/bucket/key` or `bucket/key`, URL-encoded; a `?versionId=` is ignored (the store keeps no versions). */
export function parseCopySource(header: string): { bucket: string; key: string } {
  const path = safeDecode(header.split("?")[0]).replace(/^\//, "");
  const slash = path.indexOf("/");
  if (slash <= 0 || slash === path.length - 1) throw s3Errors.invalidArgument("x-amz-copy-source must be /bucket/key.");
  return { bucket: path.slice(0, slash), key: path.slice(slash + 1) };
}

/** GET or HEAD /bucket/key, with Range or ?partNumber=, conditional headers and response-* overrides. */
export async function getObject({ lay, req, url, bucket, key, now }: S3Call): Promise<Response> {
  const record = await headObject(lay, bucket, key);
  if (!record) throw s3Errors.noSuchKey(key);
  const part = url.searchParams.has("partNumber") ? partRange(req, url.searchParams.get("partNumber") ?? "", record) : undefined;
  const checksumHeaders = servedChecksumHeaders(req, url, record);
  const response = await serveObject(req, url, record, {
    open: (range) => openObject(lay, bucket, key, range, record),
    extraHeaders: { ...amzHeaders(record, part !== undefined), ...checksumHeaders },
    range: part,
    onMissing: () => s3Errors.noSuchKey(key),
    rangeError: (size) => new S3Error("InvalidRange", "The requested range is not satisfiable", 416, { ActualObjectSize: String(size) }),
    preconditionError: () => new S3Error("PreconditionFailed", "At least one of the pre-conditions you specified did not hold", 412),
    now,
  });
  // AWS SDKs skip validating a composite checksum ("-N") only when no other digest header is
  // present: a Content-MD5 beside it would have them check the composite value against the bytes.
  if (checksumHeaders["x-amz-checksum-type"] === "COMPOSITE") response.headers.delete("content-md5");
  return response;
}

/**
 * `x-amz-meta-*`, and for a read of one part (`?partNumber=`) of a multipart object its part count:
 * S3 sends `x-amz-mp-parts-count` only then, never on a whole-object GET or HEAD.
 */
function amzHeaders(record: ObjectRecord, onePart: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(record.userMetadata)) out[`x-amz-meta-${name}`] = mailSafe(value);
  const parts = /-(\d+)$/.exec(record.etag);
  if (onePart && parts) out["x-amz-mp-parts-count"] = parts[1];
  return out;
}

/** DELETE /bucket/key: 204 whether or not the key existed, as S3 answers. */
export async function removeObject({ lay, bucket, key }: S3Call): Promise<Response> {
  await deleteObject(lay, bucket, key);
  return new Response(null, { status: 204 });
}
