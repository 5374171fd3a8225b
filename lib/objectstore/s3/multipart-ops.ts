import fs from "node:fs/promises";
import { discardUnreadBody } from "../discard-body";
import {
  abortUpload,
  commitPart,
  completeUpload,
  completedUpload,
  createUpload,
  getUpload,
  listParts,
  listUploads,
  MAX_PART_NUMBER,
  MultipartError,
  type RequestedPart,
  type UploadRecord,
} from "../disk/multipart";
import { checkWriteCondition, currentRecord, type ObjectRecord } from "../disk/objects";
import { sweepSoon } from "../disk/sweep";
import { childElements, childText, MalformedXmlError, parseXml, xmlDocument } from "../xml";
import { objectMetadataFrom, readXmlBody, receiveObjectBody } from "./body";
import { commitModeOf, type S3Call } from "./call";
import { checksumElement, checksumElements, checksumResponseHeaders } from "./checksum-headers";
import { S3Error, s3Errors } from "./errors";
import { completionChecksumFrom, uploadChecksumFrom, uploadChecksumHeaders } from "./multipart-checksums";
import { keptChecksum } from "./object-checksums";
import { quoted } from "./object-ops";
import { storageClassNamed } from "./storage-class";
import { writeConditionOf } from "./write-conditions";
import { xmlAnswer } from "./xml-answer";


export async function uploadOrThrow({ lay, bucket, key, url }: S3Call) {
  const upload = await getUpload(lay, bucket, key, url.searchParams.get("uploadId") ?? "");
  if (!upload) throw new MultipartError("NoSuchUpload", "The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.");
  return upload;
}

/** POST /bucket/key?uploads */
export async function createMultipartUpload(call: S3Call): Promise<Response> {
  sweepSoon(call.lay);
  storageClassNamed(call.req);
  const checksum = uploadChecksumFrom(call.req);
  const upload = await createUpload(call.lay, { bucket: call.bucket, key: call.key, ...objectMetadataFrom(call.req), ...(checksum ? { checksum } : {}) }, call.now);
  const response = xmlAnswer(xmlDocument("InitiateMultipartUploadResult", { Bucket: call.bucket, Key: call.key, UploadId: upload.uploadId }));
  for (const [name, value] of Object.entries(uploadChecksumHeaders(checksum))) response.headers.set(name, value);
  return response;
}

/** The `partNumber` of an UploadPart or UploadPartCopy: 1 to 10,000. */
export function partNumberOf(call: S3Call): number {
  const partNumber = Number(call.url.searchParams.get("partNumber"));
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > MAX_PART_NUMBER) {
    throw s3Errors.invalidArgument(`Part number must be an integer between 1 and ${MAX_PART_NUMBER}, inclusive`);
  }
  return partNumber;
}

/** PUT /bucket/key?partNumber=N&uploadId=U */
export async function uploadPart(call: S3Call): Promise<Response> {
  const partNumber = partNumberOf(call);
  const upload = await uploadOrThrow(call);
  // A part of an upload created with a checksum algorithm has that checksum computed, declared or not.
  const received = await receiveObjectBody(call.lay, call.req, call.payload, upload.checksum?.algorithm ?? null);
  try {
    const part = await commitPart(call.lay, upload, partNumber, received, call.now);
    return new Response(null, { status: 200, headers: { ETag: quoted(part.md5), ...checksumResponseHeaders(keptChecksum(received), false) } });
  } catch (err) {
    await fs.rm(received.path, { force: true });
    throw err;
  }
}

/** GET /bucket/key?uploadId=U (max-parts, part-number-marker) */
export async function listUploadParts(call: S3Call): Promise<Response> {
  const upload = await uploadOrThrow(call);
  const marker = Number(call.url.searchParams.get("part-number-marker") ?? 0) || 0;
  const maxParts = Math.min(1000, Math.max(0, Number(call.url.searchParams.get("max-parts") ?? 1000) || 1000));
  const after = (await listParts(call.lay, upload)).filter((p) => p.partNumber > marker);
  const page = after.slice(0, maxParts);
  const truncated = after.length > page.length;
  return xmlAnswer(
    xmlDocument("ListPartsResult", {
      Bucket: call.bucket,
      Key: call.key,
      UploadId: upload.uploadId,
      Initiator: { ID: "easel", DisplayName: "easel" },
      Owner: { ID: "easel", DisplayName: "easel" },
      StorageClass: "STANDARD",
      ...(upload.checksum ? { ChecksumAlgorithm: upload.checksum.algorithm.toUpperCase(), ChecksumType: upload.checksum.type } : {}),
      PartNumberMarker: marker,
      NextPartNumberMarker: page.length ? page[page.length - 1].partNumber : marker,
      MaxParts: maxParts,
      IsTruncated: truncated,
      Part: page.map((p) => ({
        PartNumber: p.partNumber,
        LastModified: p.lastModified,
        ETag: quoted(p.md5),
        Size: p.size,
        ...(upload.checksum && p.checksum ? { [checksumElement(upload.checksum.algorithm)]: p.checksum } : {}),
      })),
    }),
  );
}

/**
 * POST /bucket/key?uploadId=U with the CompleteMultipartUpload document. Sent again for an upload
 * already completed (a retry after a lost answer, or racing the first), while its object is still
 * the one at the key, it answers the same result, as S3 does. A conditional completion
 * (If-None-Match: * / If-Match) is judged before the parts are assembled and again at the commit;
 * refused, it leaves the upload and its parts as they were.
 */
export async function completeMultipartUpload(call: S3Call): Promise<Response> {
  const uploadId = call.url.searchParams.get("uploadId") ?? "";
  const done = await completedUpload(call.lay, call.bucket, call.key, uploadId);
  if (done) {
    await requestedParts(call, null);
    return completionResult(call, done);
  }
  try {
    const upload = await uploadOrThrow(call);
    const expectedChecksum = completionChecksumFrom(call.req, upload);
    const parts = await requestedParts(call, upload);
    const condition = writeConditionOf(call.req);
    if (condition) checkWriteCondition(call.key, await currentRecord(call.lay, call.bucket, call.key), condition);
    return completionResult(call, await completeUpload(call.lay, upload, parts, call.now, commitModeOf(call), expectedChecksum, condition));
  } catch (err) {
    // Another request completed this upload since the check above.
    const raced = err instanceof MultipartError ? await completedUpload(call.lay, call.bucket, call.key, uploadId) : null;
    if (!raced) throw err;
    discardUnreadBody(call.req);
    return completionResult(call, raced);
  }
}

/** The parts a completion names, each with its checksum element of the upload's algorithm when sent. */
async function requestedParts(call: S3Call, upload: UploadRecord | null): Promise<RequestedPart[]> {
  const body = await readXmlBody(call.req, call.payload);
  const checksumTag = upload?.checksum ? checksumElement(upload.checksum.algorithm) : null;
  let parts: RequestedPart[];
  try {
    const doc = await parseXml(body, { root: "CompleteMultipartUpload", maxElements: MAX_COMPLETE_ELEMENTS });
    parts = childElements(doc, "Part").map((part) => {
      const checksum = checksumTag ? childText(part, checksumTag) : null;
      return { partNumber: Number(childText(part, "PartNumber")), etag: childText(part, "ETag") ?? "", ...(checksum !== null ? { checksum: checksum.trim() } : {}) };
    });
  } catch (err) {
    throw err instanceof MalformedXmlError ? s3Errors.malformedXml() : err;
  }
  if (parts.some((p) => !Number.isInteger(p.partNumber) || !p.etag)) throw s3Errors.malformedXml();
  return parts;
}

/**
 * Elements of the largest completion clients send: the root, and per part (at most
 * MAX_PART_NUMBER) Part, PartNumber, ETag, the upload's checksum, and one more element to spare.
 */
const MAX_COMPLETE_ELEMENTS = 1 + MAX_PART_NUMBER * 5;

function completionResult(call: S3Call, record: ObjectRecord): Response {
  const location = `${call.url.origin}${call.url.pathname}`;
  return xmlAnswer(xmlDocument("CompleteMultipartUploadResult", { Location: location, Bucket: call.bucket, Key: call.key, ETag: quoted(record.etag), ...checksumElements(record.checksum) }));
}

/** DELETE /bucket/key?uploadId=U */
export async function abortMultipartUpload(call: S3Call): Promise<Response> {
  await abortUpload(call.lay, await uploadOrThrow(call));
  return new Response(null, { status: 204 });
}

/** GET /bucket?uploads (prefix, max-uploads) */
export async function listMultipartUploads(call: S3Call): Promise<Response> {
  const prefix = call.url.searchParams.get("prefix") ?? "";
  const maxUploads = Math.min(1000, Math.max(0, Number(call.url.searchParams.get("max-uploads") ?? 1000) || 1000));
  const all = (await listUploads(call.lay, call.bucket)).filter((u) => u.key.startsWith(prefix));
  const page = all.slice(0, maxUploads);
  return xmlAnswer(
    xmlDocument("ListMultipartUploadsResult", {
      Bucket: call.bucket,
      KeyMarker: "",
      UploadIdMarker: "",
      Prefix: prefix,
      MaxUploads: maxUploads,
      IsTruncated: all.length > page.length,
      Upload: page.map((u) => ({ Key: u.key, UploadId: u.uploadId, Initiated: u.initiated, StorageClass: "STANDARD" })),
    }),
  );
}

export function multipartErrorToS3(err: MultipartError): S3Error {
  const status = err.code === "NoSuchUpload" ? 404 : 400;
  return new S3Error(err.code, err.message, status);
}
