import fs from "node:fs/promises";
import type { Clock } from "../../clock";
import { takeBody } from "../../http/request-body";
import { log } from "../../log/logger.mjs";
import { countUploadBytes } from "../../metrics/registry.mjs";
import { gcsBodyWriteKey } from "../admission/body-writes";
import { asBusyAnswer } from "../admission/busy";
import type { BodyAdmission } from "../admission/store-admission";
import { workspaceOfKey, type Admission } from "../admission/upload-slots";
import { safeDecode, strictEncode } from "../canonical";
import { storagePreflight, withStorageCors } from "../cors";
import { discardUnreadBody } from "../discard-body";
import { isValidBucketName, type Layout } from "../disk/layout";
import { NO_SPACE_MESSAGE, isNoSpace } from "../disk/no-space";
import { checkWriteCondition, commitObject, deleteObject, headObject, NoSuchBucketError, ObjectExistsError, openObject, PreconditionFailedError, type CommitMode, type WriteCondition } from "../disk/objects";
import { BodyError, receiveToTemp } from "../disk/receive";
import { sweepSoon } from "../disk/sweep";
import { clientOrigin } from "../origin";
import { serveObject } from "../serve-object";
import { parseContentRange } from "./content-range";
import { GcsError, gcsErrorResponse, gcsErrors } from "./errors";
import { cancelSession, createSession, getSession, MAX_OBJECT_BYTES, querySession, writeChunk, type ChunkOutcome } from "./sessions";
import { verifyGcsSignedUrl, type GcsVerifier } from "./signed-url";

export type GcsStoreContext = {
  lay: Layout;
  identity: () => Promise<GcsVerifier>;
  clock: Clock;
  /** Path the store is served under, e.g. "/storage/gcs"; the signed resource path follows it. */
  mountPath: string;
  /** Bounds the bodies read at once (lib/objectstore/admission); absent, every body is read. */
  admitBody?: BodyAdmission;
  /**
   * Absent or `seal` (Easel's own store): a write through a signed URL or its session creates an
   * object and never replaces one. `replace`: it replaces the object at its name unless its own
   * `x-goog-if-generation-match: 0` forbids it, as GCS does: the store standing in for a real
   * bucket in tests.
   */
  signedWrites?: "seal" | "replace";
};

const EXPOSED = "Location, Range, ETag, Content-Length, Content-Range, x-goog-hash, x-goog-stored-content-length, X-GUploader-UploadID";

type Target = { bucket: string; key: string; resourcePath: string };

function parseTarget(url: URL, mountPath: string): Target {
  const resourcePath = url.pathname.startsWith(mountPath) ? url.pathname.slice(mountPath.length) || "/" : url.pathname;
  const trimmed = resourcePath.replace(/^\//, "");
  const slash = trimmed.indexOf("/");
  if (slash <= 0 || slash === trimmed.length - 1) throw gcsErrors.invalidArgument("The path must be /<bucket>/<object>.");
  const bucket = safeDecode(trimmed.slice(0, slash));
  // A name that could not be a bucket never reaches the file system (it could name a path).
  if (!isValidBucketName(bucket)) throw gcsErrors.noSuchBucket();
  return { bucket, key: safeDecode(trimmed.slice(slash + 1)), resourcePath };
}

/**
 * The embedded store's GCS endpoint (XML API subset): resumable uploads opened through a V4 signed
 * URL (POST with `x-goog-resumable: start`), then PUT to the session whole or in chunks, status
 * queries and cancellation; plus signed GET/HEAD, PUT and DELETE of objects. Every write here is
 * authorized by a signed URL or a session one opened, so each may create an object but never
 * replace one (Easel's server writes its own objects directly, lib/storage/gcs/local-objects.ts),
 * unless the store stands in for a real bucket (`signedWrites`). `x-goog-if-generation-match: 0`
 * is honoured either way, as GCS does.
 */
export async function handleGcsRequest(req: Request, ctx: GcsStoreContext): Promise<Response> {
  if (req.method === "OPTIONS") return storagePreflight(req, "GET, HEAD, PUT, POST, DELETE", EXPOSED);
  const url = new URL(req.url);
  let admission: Admission | undefined;
  try {
    const target = parseTarget(url, ctx.mountPath);
    // A body write takes its slot before its signature or session is looked at, so a flood of
    // refusals costs nothing more; a slot whose request then fails is given back (finally).
    const urlKey = ctx.admitBody ? gcsBodyWriteKey(req.method, target.bucket, target.key, url) : null;
    admission = urlKey && ctx.admitBody ? ctx.admitBody(urlKey, workspaceOfKey(target.key)) : undefined;
    if (admission && !admission.admitted) return withStorageCors(asBusyAnswer(gcsErrorResponse(gcsErrors.slowDown(), req.method)), EXPOSED);
    const uploadId = url.searchParams.get("upload_id");
    const response = uploadId !== null ? await sessionRequest(req, ctx, target, uploadId) : await signedRequest(req, url, ctx, target);
    return withStorageCors(response, EXPOSED);
  } catch (err) {
    discardUnreadBody(req);
    return withStorageCors(gcsErrorResponse(toGcsError(err, { method: req.method, path: url.pathname }), req.method), EXPOSED);
  } finally {
    if (admission?.admitted) admission.slot.release();
  }
}

/** Requests on a session URL: the session id is the capability (as with GCS), so no signature. */
async function sessionRequest(req: Request, ctx: GcsStoreContext, target: Target, uploadId: string): Promise<Response> {
  const now = ctx.clock();
  const session = await getSession(ctx.lay, uploadId, target, now);
  if (!session) throw gcsErrors.noSuchUpload();
  if (req.method === "DELETE") {
    await cancelSession(ctx.lay, session.id);
    // GCS answers a cancelled session with 499 (client closed request).
    return new Response(null, { status: 499 });
  }
  if (req.method !== "PUT") throw gcsErrors.methodNotAllowed();
  const header = req.headers.get("content-range");
  if (header === null) return outcomeResponse(await writeChunk(ctx.lay, session.id, takeBody(req), "whole", now));
  const range = parseContentRange(header);
  if (range.kind === "query") return outcomeResponse(await querySession(ctx.lay, session.id, range.total, now));
  return outcomeResponse(await writeChunk(ctx.lay, session.id, takeBody(req), range, now));
}

function outcomeResponse(outcome: ChunkOutcome): Response {
  if (outcome.done) {
    const md5 = Buffer.from(outcome.object.md5, "hex").toString("base64");
    return new Response(null, {
      status: 200,
      headers: { etag: `"${outcome.object.etag}"`, "x-goog-hash": `md5=${md5}`, "x-goog-stored-content-length": String(outcome.object.size) },
    });
  }
  // 308 "Resume Incomplete"; a 308 without Range means nothing is stored yet.
  const headers: Record<string, string> = { "content-length": "0" };
  if (outcome.committed > 0) headers.range = `bytes=0-${outcome.committed - 1}`;
  return new Response(null, { status: 308, headers });
}

/**
 * GCS's generation precondition on a write. This store keeps no generations, so the one value it
 * can judge is 0: "only if no object has this name".
 */
function generationCondition(req: Request): WriteCondition | undefined {
  const value = req.headers.get("x-goog-if-generation-match");
  if (value === null) return undefined;
  if (value.trim() !== "0") throw gcsErrors.invalidArgument("x-goog-if-generation-match: this store keeps no object generations; only 0 (create only) can be asked.");
  return { ifNoneMatch: true };
}

async function signedRequest(req: Request, url: URL, ctx: GcsStoreContext, target: Target): Promise<Response> {
  const now = ctx.clock();
  verifyGcsSignedUrl(req, url, target.resourcePath, await ctx.identity(), now);
  const { lay } = ctx;
  const commit: CommitMode = ctx.signedWrites === "replace" ? "overwrite" : "create-only";
  switch (req.method) {
    case "POST": {
      if (req.headers.get("x-goog-resumable") !== "start") throw gcsErrors.invalidArgument("Only resumable uploads (x-goog-resumable: start) can be opened with POST.");
      sweepSoon(lay);
      const condition = generationCondition(req);
      const existing = await headObject(lay, target.bucket, target.key);
      // A session opened on a taken name that could only end refused is not opened (the final
      // commit checks again, under the lock): Easel's store never replaces, and a precondition says no.
      checkWriteCondition(target.key, existing, condition);
      if (existing && commit === "create-only") throw gcsErrors.objectExists();
      const declared = Number(req.headers.get("x-upload-content-length") ?? NaN);
      const session = await createSession(lay, {
        bucket: target.bucket,
        key: target.key,
        contentType: req.headers.get("x-upload-content-type") || req.headers.get("content-type") || "application/octet-stream",
        headers: {},
        userMetadata: googMetadata(req),
        total: Number.isSafeInteger(declared) && declared >= 0 ? declared : null,
        commit,
        condition,
      }, now);
      const location = `${clientOrigin(req, url)}${ctx.mountPath}/${strictEncode(target.bucket)}/${target.key.split("/").map(strictEncode).join("/")}?upload_id=${session.id}`;
      return new Response(null, { status: 201, headers: { location, "x-guploader-uploadid": session.id, "content-length": "0" } });
    }
    case "PUT": {
      const condition = generationCondition(req);
      const received = await receiveToTemp(lay, takeBody(req), { maxBytes: MAX_OBJECT_BYTES, expectedLength: numberHeader(req, "content-length"), sha256: false, transfer: true });
      countUploadBytes(received.size);
      const md5 = received.md5.toString("hex");
      const contentType = req.headers.get("content-type") || "application/octet-stream";
      const record = { size: received.size, md5, etag: md5, contentType, headers: {}, userMetadata: googMetadata(req) };
      await commitObject(lay, target.bucket, target.key, [received], record, now, commit, condition).catch(async (err) => {
        await fs.rm(received.path, { force: true });
        throw err;
      });
      return new Response(null, { status: 200, headers: { etag: `"${md5}"`, "x-goog-hash": `md5=${received.md5.toString("base64")}` } });
    }
    case "DELETE": {
      if (!(await deleteObject(lay, target.bucket, target.key))) throw gcsErrors.noSuchKey();
      return new Response(null, { status: 204 });
    }
    case "GET":
    case "HEAD": {
      const record = await headObject(lay, target.bucket, target.key);
      if (!record) throw gcsErrors.noSuchKey();
      return serveObject(req, url, record, {
        open: (range) => openObject(lay, target.bucket, target.key, range, record),
        extraHeaders: { "x-goog-hash": `md5=${Buffer.from(record.md5, "hex").toString("base64")}`, "x-goog-stored-content-length": String(record.size) },
        onMissing: () => gcsErrors.noSuchKey(),
        rangeError: () => new GcsError("InvalidRange", "The requested range cannot be satisfied.", 416),
        preconditionError: () => new GcsError("PreconditionFailed", "At least one of the pre-conditions you specified did not hold.", 412),
        now,
      });
    }
    default:
      throw gcsErrors.methodNotAllowed();
  }
}

function googMetadata(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  req.headers.forEach((value, name) => {
    if (name.startsWith("x-goog-meta-")) out[name.slice("x-goog-meta-".length)] = value;
  });
  return out;
}

function numberHeader(req: Request, name: string): number | null {
  const raw = req.headers.get(name);
  const n = raw === null ? NaN : Number(raw);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

function toGcsError(err: unknown, request: { method: string; path: string }): GcsError {
  if (err instanceof GcsError) return err;
  if (err instanceof NoSuchBucketError) return gcsErrors.noSuchBucket();
  if (err instanceof ObjectExistsError) return gcsErrors.objectExists();
  if (err instanceof PreconditionFailedError) return gcsErrors.preconditionFailed();
  if (err instanceof BodyError) {
    if (err.reason === "too_large") return new GcsError("EntityTooLarge", "Your proposed upload is larger than the maximum object size.", 400);
    if (err.reason === "incomplete") return new GcsError("IncompleteBody", "The body ended before the bytes its headers announced.", 400);
    return new GcsError("RequestTimeout", "The client closed the connection before the body ended.", 400);
  }
  if (isNoSpace(err)) return gcsErrors.storageFull(NO_SPACE_MESSAGE);
  log().error({ component: "objectstore", api: "gcs", method: request.method, path: request.path, err }, "embedded store request failed; answered 500");
  return gcsErrors.internal();
}
