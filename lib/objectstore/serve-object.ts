import { Readable } from "node:stream";
import { parseRange } from "../http/range";
import { applyStoredBytesHeaders } from "../http/stored-bytes";
import type { ObjectRecord, OpenedObject } from "./disk/objects";

type ServeOptions = {
  open: (range?: { start: number; end: number }) => Promise<OpenedObject | null>;
  /** Protocol-specific headers (x-amz-meta-*, x-goog-hash, …). */
  extraHeaders: Record<string, string>;
  onMissing: () => Error;
  rangeError: (size: number) => Error;
  preconditionError: () => Error;
  /** The bytes to answer (206) instead of any Range header: S3's `?partNumber=`. */
  range?: { start: number; end: number };
  /** The store's clock: an If-Modified-Since after it is no date at all (evaluateConditions). */
  now: Date;
};

/** Query parameters a signed GET may use to choose the response's headers (S3 and GCS share them). */
const OVERRIDES: [string, string][] = [
  ["response-content-type", "content-type"],
  ["response-content-disposition", "content-disposition"],
  ["response-content-encoding", "content-encoding"],
  ["response-content-language", "content-language"],
  ["response-cache-control", "cache-control"],
  ["response-expires", "expires"],
];

/**
 * Answers GET or HEAD for a stored object: conditional requests (If-Match, If-None-Match,
 * If-Modified-Since, If-Unmodified-Since), one byte range (read as S3 reads it: lib/http/range.ts),
 * and the signed response-* overrides.
 * The type and disposition the uploader stored, or a signed override asked for, pass through
 * lib/http/stored-bytes.ts like every other response carrying uploaded bytes: a runnable type goes
 * out as an attachment, with nosniff and a sandbox CSP, whatever was stored or requested.
 * The bytes stream from disk; nothing is read into memory whole.
 */
export async function serveObject(req: Request, url: URL, record: ObjectRecord, opts: ServeOptions): Promise<Response> {
  const headers = new Headers({
    "content-type": record.contentType,
    etag: `"${record.etag}"`,
    "last-modified": new Date(record.lastModified).toUTCString(),
    "accept-ranges": "bytes",
  });
  for (const [name, value] of Object.entries(record.headers)) if (value !== undefined) headers.set(name, value);
  for (const [name, value] of Object.entries(opts.extraHeaders)) headers.set(name, value);
  for (const [param, header] of OVERRIDES) {
    const value = url.searchParams.get(param);
    if (value !== null) headers.set(header, value);
  }
  applyStoredBytesHeaders(headers, headers.get("content-type"), headers.get("content-disposition"));
  // Stored bytes go out as stored: no transparent compression by the server or a proxy, which
  // would change the length, break byte ranges and make Content-MD5 wrong. With no Cache-Control
  // stored or asked for, caches revalidate (by ETag) rather than guess a lifetime from
  // Last-Modified: a key's bytes may change until its upload completes (lease files always do),
  // and a cached answer must never be stale content (contract §14).
  const cacheControl = headers.get("cache-control") ?? "no-cache";
  if (!cacheControl.includes("no-transform")) headers.set("cache-control", `${cacheControl}, no-transform`);

  const verdict = evaluateConditions((name) => req.headers.get(name), record, opts.now);
  if (verdict === "precondition_failed") throw opts.preconditionError();
  if (verdict === "not_modified") {
    return new Response(null, { status: 304, headers: pick(headers, ["etag", "last-modified"]) });
  }

  const range = opts.range ?? parseRange(req.headers.get("range"), record.size);
  if (range === "unsatisfiable") throw opts.rangeError(record.size);
  const status = range ? 206 : 200;
  const length = range ? range.end - range.start + 1 : record.size;
  headers.set("content-length", String(length));
  if (range) headers.set("content-range", `bytes ${range.start}-${range.end}/${record.size}`);
  // The whole body's md5 (RFC 1864), so readers get the stored digest without hashing the bytes again.
  else headers.set("content-md5", Buffer.from(record.md5, "hex").toString("base64"));

  if (req.method === "HEAD") return new Response(null, { status, headers });
  const opened = await opts.open(range ?? undefined);
  if (!opened) throw opts.onMissing();
  return new Response(Readable.toWeb(opened.stream) as unknown as ReadableStream<Uint8Array>, { status, headers });
}

function pick(headers: Headers, names: string[]): Headers {
  const out = new Headers();
  for (const name of names) {
    const value = headers.get(name);
    if (value !== null) out.set(name, value);
  }
  return out;
}

function etagMatches(header: string, etag: string): boolean {
  return header
    .split(",")
    .map((t) => t.trim().replace(/^W\//, "").replace(/"/g, ""))
    .some((t) => t === "*" || t === etag);
}

type ConditionHeader = "if-match" | "if-none-match" | "if-modified-since" | "if-unmodified-since";

/**
 * RFC 7232's order: If-Match decides over If-Unmodified-Since, If-None-Match over
 * If-Modified-Since. `header` reads the condition (a GET's own headers, or a copy's
 * `x-amz-copy-source-if-*`). An If-Modified-Since later than `now` is not a valid date (RFC 7232
 * §3.3) and is ignored, as S3 ignores it on GET, HEAD and copies: otherwise a client whose clock
 * runs ahead would be told nothing changed, or have its copy refused.
 */
export function evaluateConditions(header: (name: ConditionHeader) => string | null, record: ObjectRecord, now: Date): "ok" | "precondition_failed" | "not_modified" {
  const modified = Math.floor(new Date(record.lastModified).getTime() / 1000) * 1000;
  const ifMatch = header("if-match");
  const ifNoneMatch = header("if-none-match");
  const ifUnmodified = Date.parse(header("if-unmodified-since") ?? "");
  const ifModified = Date.parse(header("if-modified-since") ?? "");
  if (ifMatch !== null && !etagMatches(ifMatch, record.etag)) return "precondition_failed";
  if (ifMatch === null && !Number.isNaN(ifUnmodified) && modified > ifUnmodified) return "precondition_failed";
  if (ifNoneMatch !== null) return etagMatches(ifNoneMatch, record.etag) ? "not_modified" : "ok";
  if (!Number.isNaN(ifModified) && ifModified <= now.getTime() && modified <= ifModified) return "not_modified";
  return "ok";
}
