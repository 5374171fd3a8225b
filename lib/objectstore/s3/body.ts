import crypto from "node:crypto";
import fs from "node:fs/promises";
import { takeBody, type BodySource } from "../../http/request-body";
import { countUploadBytes } from "../../metrics/registry.mjs";
import { checksumOf, type ChecksumAlgorithm } from "../disk/checksum-algorithms";
import type { Layout } from "../disk/layout";
import type { StoredHeaders } from "../disk/objects";
import { BodyError, BodyRefused, iterate, receiveToTemp, type Received } from "../disk/receive";
import { headerText } from "../header-text";
import { decodeAwsChunked } from "./aws-chunked";
import { algorithmName, checksumRequested, verifyChecksum } from "./checksum-headers";
import { S3Error } from "./errors";
import type { PayloadPolicy } from "./sigv4";

/** S3's limit for one PUT (an object or one part). */
export const MAX_PUT_BYTES = 5 * 1024 * 1024 * 1024;
/** Request bodies that are XML documents (Complete, Delete): 10,000 parts fit well inside. */
const MAX_XML_BYTES = 4 * 1024 * 1024;

/** A received body and the algorithm of its `checksum` (null when none was asked for). */
export type ReceivedBody = Received & { checksumAlgorithm: ChecksumAlgorithm | null };

/**
 * The request's body as the bytes it carries: an `aws-chunked` body is decoded (and its chunk
 * signatures checked) on the way; `trailers` then gives the headers that followed its last chunk.
 */
function requestBody(req: Request, payload: PayloadPolicy): { body: BodySource; length: number | null; trailers: (() => Map<string, string>) | null } {
  if (payload.kind !== "streaming") return { body: takeBody(req), length: contentLength(req), trailers: null };
  const length = decodedContentLength(req);
  const decoded = decodeAwsChunked(takeBody(req), { decodedLength: length, signing: payload.signing, trailer: payload.trailer });
  return { body: decoded.body, length, trailers: decoded.trailers };
}

/**
 * Streams an object or part body to a temp file and checks it against what the request promised:
 * its length, its Content-MD5, the sha256 the signature covers, and the x-amz-checksum it declares
 * (as a header or an aws-chunked trailer). `algorithm`: a checksum the caller needs computed
 * whether or not the request declares one (a part of an upload created with one); a request that
 * declares another is refused. Only the algorithm concerned is computed. A body that fails any
 * check is removed before the error is answered, so nothing of it can become visible.
 */
export async function receiveObjectBody(lay: Layout, req: Request, payload: PayloadPolicy, algorithm: ChecksumAlgorithm | null = null): Promise<ReceivedBody> {
  const declaredMd5 = contentMd5(req);
  const declaredChecksum = checksumRequested(req, payload);
  if (algorithm && declaredChecksum && declaredChecksum.algorithm !== algorithm) {
    throw new S3Error(
      "InvalidRequest",
      `Checksum Type mismatch occurred, expected checksum Type: ${algorithmName(algorithm).toLowerCase()}, actual checksum Type: ${algorithmName(declaredChecksum.algorithm).toLowerCase()}`,
      400,
    );
  }
  const checksumAlgorithm = declaredChecksum?.algorithm ?? algorithm;
  const { body, length, trailers } = requestBody(req, payload);
  let received: Received;
  try {
    received = await receiveToTemp(lay, body, {
      maxBytes: MAX_PUT_BYTES,
      expectedLength: length,
      sha256: payload.kind === "sha256",
      checksum: checksumAlgorithm,
      transfer: true, // a request's body: its chunks are read by nothing else
    });
  } catch (err) {
    if (err instanceof BodyRefused) throw err.answer;
    throw err instanceof BodyError ? bodyErrorToS3(err) : err;
  }
  // Received, whether or not the checks below then refuse it (bytes that crossed the network).
  countUploadBytes(received.size);
  let problem =
    declaredMd5 && !declaredMd5.equals(received.md5)
      ? new S3Error("BadDigest", "The Content-MD5 you specified did not match what we received.", 400)
      : payload.kind === "sha256" && payload.hex !== received.sha256
        ? new S3Error("XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.", 400)
        : null;
  try {
    if (!problem) verifyChecksum(declaredChecksum, received.checksum, trailers?.() ?? null);
  } catch (err) {
    problem = err as S3Error;
  }
  if (problem) {
    await fs.rm(received.path, { force: true });
    throw problem;
  }
  return { ...received, checksumAlgorithm };
}

/**
 * A small XML request body, whole, checked against the signed sha256 when there is one, and
 * (`checksum`) against the x-amz-checksum-* it declares: for CompleteMultipartUpload that header
 * is the object's checksum, not the document's, so it asks for no such check.
 */
export async function readXmlBody(req: Request, payload: PayloadPolicy, opts: { checksum?: boolean } = {}): Promise<string> {
  const declaredChecksum = opts.checksum ? checksumRequested(req, payload) : null;
  const length = contentLength(req);
  if (length !== null && length > MAX_XML_BYTES) throw new S3Error("MaxMessageLengthExceeded", "Your request was too big.", 400);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const { body: source, trailers } = requestBody(req, payload);
  try {
    if (source) {
      for await (const chunk of iterate(source)) {
        size += chunk.length;
        if (size > MAX_XML_BYTES) throw new S3Error("MaxMessageLengthExceeded", "Your request was too big.", 400);
        chunks.push(chunk);
      }
    }
  } catch (err) {
    throw err instanceof BodyRefused ? err.answer : err;
  }
  const body = Buffer.concat(chunks);
  if (payload.kind === "sha256" && crypto.createHash("sha256").update(body).digest("hex") !== payload.hex) {
    throw new S3Error("XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.", 400);
  }
  const declaredMd5 = contentMd5(req);
  if (declaredMd5 && !declaredMd5.equals(crypto.createHash("md5").update(body).digest())) {
    throw new S3Error("BadDigest", "The Content-MD5 you specified did not match what we received.", 400);
  }
  if (declaredChecksum) verifyChecksum(declaredChecksum, await checksumOf(declaredChecksum.algorithm, body), trailers?.() ?? null);
  return body.toString("utf8");
}

export function bodyErrorToS3(err: BodyError): S3Error {
  if (err.reason === "too_large") return new S3Error("EntityTooLarge", "Your proposed upload exceeds the maximum allowed size.", 400, { MaxSizeAllowed: String(MAX_PUT_BYTES) });
  if (err.reason === "incomplete") return new S3Error("IncompleteBody", "You did not provide the number of bytes specified by the Content-Length HTTP header.", 400);
  return new S3Error("RequestTimeout", "Your socket connection to the server was not read from or written to within the timeout period.", 400);
}

function contentLength(req: Request): number | null {
  const raw = req.headers.get("content-length");
  if (raw === null) return null;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new S3Error("InvalidArgument", "Content-Length is not a valid number.", 400);
  return n;
}

/** An aws-chunked body's own length: Content-Length counts its framing too. */
function decodedContentLength(req: Request): number {
  const raw = req.headers.get("x-amz-decoded-content-length");
  if (raw === null) throw new S3Error("MissingContentLength", "You must provide the Content-Length HTTP header.", 411);
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n)) throw new S3Error("InvalidArgument", "x-amz-decoded-content-length is not a valid number.", 400);
  if (n > MAX_PUT_BYTES) throw bodyErrorToS3(new BodyError("too_large", `the body is larger than ${MAX_PUT_BYTES} bytes`));
  return n;
}

function contentMd5(req: Request): Buffer | null {
  const raw = req.headers.get("content-md5");
  if (raw === null) return null;
  const digest = Buffer.from(raw, "base64");
  if (digest.length !== 16) throw new S3Error("InvalidDigest", "The Content-MD5 you specified is not valid.", 400);
  return digest;
}

const STORED_HEADERS = ["cache-control", "content-disposition", "content-encoding", "content-language", "expires"] as const;

/** What an object keeps from the request that creates it: content type, replayable headers, x-amz-meta-*. */
export function objectMetadataFrom(req: Request) {
  const headers: StoredHeaders = {};
  for (const name of STORED_HEADERS) {
    const value = name === "content-encoding" ? withoutAwsChunked(req.headers.get(name)) : req.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const userMetadata: Record<string, string> = {};
  req.headers.forEach((value, name) => {
    if (name.startsWith("x-amz-meta-")) userMetadata[name.slice("x-amz-meta-".length)] = headerText(value);
  });
  return { contentType: req.headers.get("content-type") || "binary/octet-stream", headers, userMetadata };
}

/** `aws-chunked` describes how the request carried the bytes, not the bytes: the object keeps the rest. */
function withoutAwsChunked(value: string | null): string | null {
  if (value === null) return null;
  const kept = value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v && v.toLowerCase() !== "aws-chunked");
  return kept.length ? kept.join(",") : null;
}
