import crypto from "node:crypto";
import fs from "node:fs/promises";
import type { Layout } from "../disk/layout";
import { BodyError, iterate, receiveToTemp, type Received } from "../disk/receive";
import type { StoredHeaders } from "../disk/objects";
import { takeBody } from "../../http/request-body";
import { countUploadBytes } from "../../metrics/registry.mjs";
import { headerText } from "../header-text";
import { S3Error } from "./errors";
import type { PayloadPolicy } from "./sigv4";

/** S3's limit for one PUT (an object or one part). */
export const MAX_PUT_BYTES = 5 * 1024 * 1024 * 1024;
/** Request bodies that are XML documents (Complete, Delete): 10,000 parts fit well inside. */
const MAX_XML_BYTES = 4 * 1024 * 1024;

/**
 * Streams an object or part body to a temp file and checks it against what the request promised:
 * its length, its Content-MD5, and the sha256 the signature covers. A body that fails any check is
 * removed before the error is answered, so nothing of it can become visible.
 */
export async function receiveObjectBody(lay: Layout, req: Request, payload: PayloadPolicy): Promise<Received> {
  const declaredMd5 = contentMd5(req);
  let received: Received;
  try {
    received = await receiveToTemp(lay, takeBody(req), {
      maxBytes: MAX_PUT_BYTES,
      expectedLength: contentLength(req),
      sha256: payload.kind === "sha256",
      transfer: true, // a request's body: its chunks are read by nothing else
    });
  } catch (err) {
    throw err instanceof BodyError ? bodyErrorToS3(err) : err;
  }
  // Received, whether or not the checks below then refuse it (bytes that crossed the network).
  countUploadBytes(received.size);
  const problem =
    declaredMd5 && !declaredMd5.equals(received.md5)
      ? new S3Error("BadDigest", "The Content-MD5 you specified did not match what we received.", 400)
      : payload.kind === "sha256" && payload.hex !== received.sha256
        ? new S3Error("XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.", 400)
        : null;
  if (problem) {
    await fs.rm(received.path, { force: true });
    throw problem;
  }
  return received;
}

/** A small XML request body, whole, checked against the signed sha256 when there is one. */
export async function readXmlBody(req: Request, payload: PayloadPolicy): Promise<string> {
  const length = contentLength(req);
  if (length !== null && length > MAX_XML_BYTES) throw new S3Error("MaxMessageLengthExceeded", "Your request was too big.", 400);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const source = takeBody(req);
  if (source) {
    for await (const chunk of iterate(source)) {
      size += chunk.length;
      if (size > MAX_XML_BYTES) throw new S3Error("MaxMessageLengthExceeded", "Your request was too big.", 400);
      chunks.push(chunk);
    }
  }
  const body = Buffer.concat(chunks);
  if (payload.kind === "sha256" && crypto.createHash("sha256").update(body).digest("hex") !== payload.hex) {
    throw new S3Error("XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.", 400);
  }
  const declaredMd5 = contentMd5(req);
  if (declaredMd5 && !declaredMd5.equals(crypto.createHash("md5").update(body).digest())) {
    throw new S3Error("BadDigest", "The Content-MD5 you specified did not match what we received.", 400);
  }
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
    const value = req.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  const userMetadata: Record<string, string> = {};
  req.headers.forEach((value, name) => {
    if (name.startsWith("x-amz-meta-")) userMetadata[name.slice("x-amz-meta-".length)] = headerText(value);
  });
  return { contentType: req.headers.get("content-type") || "binary/octet-stream", headers, userMetadata };
}
