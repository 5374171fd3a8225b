import fs from "node:fs/promises";
import type { ChecksumAlgorithm } from "../disk/checksum-algorithms";
import { commitPart } from "../disk/multipart";
import { headObject, openObject } from "../disk/objects";
import { receiveToTemp } from "../disk/receive";
import { xmlDocument } from "../xml";
import { MAX_PUT_BYTES } from "./body";
import type { S3Call } from "./call";
import { checksumElement } from "./checksum-headers";
import { refuseCrossWorkspaceCopy } from "./copy-scope";
import { S3Error, s3Errors } from "./errors";
import { partNumberOf, uploadOrThrow } from "./multipart-ops";
import { parseCopySource, quoted } from "./object-ops";
import { checkCopySourceConditions } from "./write-conditions";
import { xmlAnswer } from "./xml-answer";

/**
 * `x-amz-copy-source-range: bytes=first-last`, both offsets given and inside the source (S3
 * accepts no other form); absent, the whole source.
 */
function copyRange(header: string | null, size: number): { start: number; end: number } | undefined {
  if (header === null) return undefined;
  const m = /^bytes=(\d+)-(\d+)$/.exec(header.trim());
  if (!m) throw s3Errors.invalidArgument("The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy");
  const start = Number(m[1]);
  const end = Number(m[2]);
  if (start > end || end >= size) throw s3Errors.invalidArgument(`Range specified is not valid for source object of size: ${size}`);
  return { start, end };
}

/**
 * The source's bytes (its copy range) in a temp file, with the `checksum` of the upload's algorithm
 * computed on the write worker in the same pass as their md5. Its conditions are judged on the
 * record whose bytes are read: a source replaced between the look and the read is looked at again.
 */
async function readSourceRange(call: S3Call, source: { bucket: string; key: string }, checksum: ChecksumAlgorithm | null) {
  const { lay, req, now } = call;
  for (let attempt = 0; attempt < 5; attempt++) {
    const record = await headObject(lay, source.bucket, source.key);
    if (!record) throw s3Errors.noSuchKey(source.key);
    checkCopySourceConditions(req, record, now);
    const range = copyRange(req.headers.get("x-amz-copy-source-range"), record.size);
    const opened = await openObject(lay, source.bucket, source.key, range, record);
    if (!opened) throw s3Errors.noSuchKey(source.key);
    try {
      if (opened.record.etag !== record.etag || opened.record.lastModified !== record.lastModified) continue;
      const expectedLength = range ? range.end - range.start + 1 : record.size;
      return await receiveToTemp(lay, opened.stream, { maxBytes: MAX_PUT_BYTES, expectedLength, sha256: false, checksum });
    } finally {
      opened.stream.destroy();
    }
  }
  // Replaced five times while being looked at: S3's answer to a conflicting operation in progress.
  throw new S3Error("OperationAborted", "A conflicting conditional operation is currently in progress against this resource. Please try again.", 409);
}

/**
 * PUT /bucket/key?partNumber=N&uploadId=U with x-amz-copy-source (UploadPartCopy): a part made
 * from a byte range of a stored object, streamed through the same path as an uploaded part. The
 * source is bound by the same rules as CopyObject's (its bucket and workspace; its
 * `x-amz-copy-source-if-*` conditions). In an upload created with a checksum algorithm the part
 * gets its checksum like an uploaded one, answered in CopyPartResult as S3 answers it, so a
 * COMPOSITE upload keeps its checksum of the parts' checksums whichever way its parts came.
 */
export async function uploadPartCopy(call: S3Call): Promise<Response> {
  const { lay, req, bucket, key, now } = call;
  const partNumber = partNumberOf(call);
  const source = parseCopySource(req.headers.get("x-amz-copy-source") ?? "");
  refuseCrossWorkspaceCopy(source, { bucket, key });
  const upload = await uploadOrThrow(call);
  const algorithm = upload.checksum?.algorithm ?? null;
  const received = await readSourceRange(call, source, algorithm);
  try {
    const part = await commitPart(lay, upload, partNumber, received, now);
    const checksum = algorithm && part.checksum ? { [checksumElement(algorithm)]: part.checksum } : {};
    const body = xmlDocument("CopyPartResult", { ETag: quoted(part.md5), LastModified: part.lastModified, ...checksum });
    return xmlAnswer(body);
  } catch (err) {
    await fs.rm(received.path, { force: true });
    throw err;
  }
}
