import crypto from "node:crypto";
import type { Clock } from "../../clock";
import { log } from "../../log/logger.mjs";
import { s3BodyWriteKey } from "../admission/body-writes";
import { asBusyAnswer } from "../admission/busy";
import type { BodyAdmission } from "../admission/store-admission";
import { workspaceOfKey } from "../admission/upload-slots";
import { safeDecode } from "../canonical";
import { discardUnreadBody } from "../discard-body";
import { isValidBucketName, type Layout } from "../disk/layout";
import { MultipartError } from "../disk/multipart";
import { NO_SPACE_MESSAGE, isNoSpace } from "../disk/no-space";
import { NoSuchBucketError, ObjectExistsError, PreconditionFailedError } from "../disk/objects";
import { BodyError } from "../disk/receive";
import { bodyErrorToS3 } from "./body";
import { bucketLocation, deleteObjects, headBucket, listAllBuckets, listObjects, putBucket, removeBucket } from "./bucket-ops";
import type { PresignedWrites, S3Call } from "./call";
import { s3Cors, s3Preflight } from "./cors";
import { S3Error, s3ErrorResponse, s3Errors } from "./errors";
import {
  abortMultipartUpload,
  completeMultipartUpload,
  createMultipartUpload,
  listMultipartUploads,
  listUploadParts,
  multipartErrorToS3,
  uploadPart,
} from "./multipart-ops";
import { copyObject, getObject, putObject, removeObject } from "./object-ops";
import { verifySigV4, type S3Credentials } from "./sigv4";
import { refuseServerSideEncryption } from "./sse";
import { SUBRESOURCES } from "./subresources";
import { uploadPartCopy } from "./upload-part-copy";

export type S3StoreContext = {
  lay: Layout;
  credentials: () => Promise<S3Credentials>;
  clock: Clock;
  /** Path the store is served under, e.g. "/storage/s3"; buckets are the next segment (path-style). */
  mountPath: string;
  /** Bounds the bodies read at once (lib/objectstore/admission); absent, every body is read. */
  admitBody?: BodyAdmission;
  /** Absent: `seal`, Easel's own rule (call.ts). */
  presignedWrites?: PresignedWrites;
};

type Operation = (call: S3Call) => Promise<Response>;

/** Chooses the S3 operation of a request from its method, target and sub-resource. */
function operationFor(method: string, call: S3Call): Operation {
  const q = call.url.searchParams;
  const sub = [...q.keys()].filter((k) => SUBRESOURCES.has(k)).sort().join("&");
  if (!call.bucket) {
    if (method === "GET" && !sub) return listAllBuckets;
    throw s3Errors.methodNotAllowed(method);
  }
  if (!call.key) {
    const bucketOps: Record<string, Operation | undefined> = {
      "PUT:": putBucket,
      "HEAD:": headBucket,
      "GET:": listObjects,
      "GET:location": bucketLocation,
      "GET:uploads": listMultipartUploads,
      "DELETE:": removeBucket,
      "POST:delete": deleteObjects,
    };
    const op = bucketOps[`${method}:${sub}`];
    if (op) return op;
    throw sub ? s3Errors.notImplemented() : s3Errors.methodNotAllowed(method);
  }
  const objectOps: Record<string, Operation | undefined> = {
    "PUT:": call.req.headers.has("x-amz-copy-source") ? copyObject : putObject,
    "GET:": getObject,
    "HEAD:": getObject,
    "GET:partNumber": getObject,
    "HEAD:partNumber": getObject,
    "DELETE:": removeObject,
    "POST:uploads": createMultipartUpload,
    "PUT:partNumber&uploadId": call.req.headers.has("x-amz-copy-source") ? uploadPartCopy : uploadPart,
    "GET:uploadId": listUploadParts,
    "POST:uploadId": completeMultipartUpload,
    "DELETE:uploadId": abortMultipartUpload,
  };
  const op = objectOps[`${method}:${sub}`];
  if (op) return op;
  throw sub ? s3Errors.notImplemented() : s3Errors.methodNotAllowed(method);
}

/** `/storage/s3/bucket/some/key` → bucket "bucket", key "some/key" (decoded). */
function parseTarget(url: URL, mountPath: string): { bucket: string; key: string } {
  const rest = url.pathname.startsWith(mountPath) ? url.pathname.slice(mountPath.length) : url.pathname;
  const trimmed = rest.replace(/^\//, "");
  const slash = trimmed.indexOf("/");
  if (slash < 0) return { bucket: safeDecode(trimmed), key: "" };
  return { bucket: safeDecode(trimmed.slice(0, slash)), key: safeDecode(trimmed.slice(slash + 1)) };
}

/**
 * The embedded store's S3 endpoint: authenticates the request (SigV4, presigned or header) before
 * anything else reads it (an unsigned `x-amz-*` header never chooses the operation), runs the
 * operation, and answers every failure as an S3 XML error. Every answer carries CORS headers,
 * so browser uploads (Uppy) can read ETag.
 */
export async function handleS3Request(req: Request, ctx: S3StoreContext): Promise<Response> {
  const requestId = crypto.randomBytes(8).toString("hex").toUpperCase();
  const url = new URL(req.url);
  if (req.method === "OPTIONS") return s3Preflight(req);
  const { bucket, key } = parseTarget(url, ctx.mountPath);
  const resource = key ? `/${bucket}/${key}` : `/${bucket}`;
  // A body write takes its slot before anything else is done for it, so a flood of refusals costs
  // no signature check. A refusal reveals nothing a request without the signature could use, and
  // a slot taken by a request that then fails to authenticate is given back at once (finally).
  const urlKey = ctx.admitBody ? s3BodyWriteKey(req.method, bucket, key, url, req.headers.has("x-amz-copy-source")) : null;
  const admission = ctx.admitBody && urlKey ? ctx.admitBody(urlKey, workspaceOfKey(key)) : null;
  if (admission && !admission.admitted) return s3Cors(asBusyAnswer(s3ErrorResponse(s3Errors.slowDown(), resource, req.method, requestId)));
  try {
    const now = ctx.clock();
    const auth = verifySigV4(req, url, await ctx.credentials(), now, ctx.mountPath);
    // A name that could not be a bucket never reaches the file system (it could name a path).
    if (bucket && !isValidBucketName(bucket)) {
      throw req.method === "PUT" && !key ? new S3Error("InvalidBucketName", "The specified bucket is not valid.", 400, { BucketName: bucket }) : s3Errors.noSuchBucket(bucket);
    }
    refuseServerSideEncryption(req);
    const call: S3Call = { lay: ctx.lay, req, url, bucket, key, payload: auth.payload, auth: auth.mode, presignedWrites: ctx.presignedWrites ?? "seal", now };
    const response = await operationFor(req.method, call)(call);
    response.headers.set("x-amz-request-id", requestId);
    return s3Cors(response);
  } catch (err) {
    discardUnreadBody(req);
    return s3Cors(s3ErrorResponse(toS3Error(err, { method: req.method, resource, requestId }), resource, req.method, requestId));
  } finally {
    // The operation has read the body to its end, or failed (the client went away, the idle bound
    // cut it, the signature was wrong): either way the body no longer holds its slot.
    if (admission?.admitted) admission.slot.release();
  }
}

function toS3Error(err: unknown, request: { method: string; resource: string; requestId: string }): S3Error {
  if (err instanceof S3Error) return err;
  if (err instanceof NoSuchBucketError) return s3Errors.noSuchBucket(err.bucket);
  if (err instanceof ObjectExistsError) return s3Errors.objectExists();
  if (err instanceof PreconditionFailedError) return err.missing ? s3Errors.noSuchKey(err.key) : s3Errors.preconditionFailed(err.condition);
  if (err instanceof MultipartError) return multipartErrorToS3(err);
  if (err instanceof BodyError) return bodyErrorToS3(err);
  if (isNoSpace(err)) return s3Errors.storageFull(NO_SPACE_MESSAGE);
  log().error({ component: "objectstore", api: "s3", method: request.method, resource: request.resource, s3_request_id: request.requestId, err }, "embedded store request failed; answered 500");
  return s3Errors.internal();
}
