import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { Storage } from "@google-cloud/storage";
import { SignatureV4 } from "@smithy/signature-v4";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import * as gcsRoute from "../../app/storage/gcs/[[...path]]/route";
import * as s3Route from "../../app/storage/s3/[[...path]]/route";
import { env } from "../../lib/env";
import { embeddedGcsIdentity, embeddedS3Credentials } from "../../lib/objectstore/identity";
import { useTestDeps } from "../helpers/deps";
import { checksumOf, CHECKSUMS, frameSigned, frameUnsigned, SIGNED_TAMPERS, splitAt, streamSigning, wrongChecksum, type SignedTamper, type StreamSigning } from "./s3-fuzz-bodies";

/**
 * Fuzzing the embedded object store's routes (app/storage/s3 and app/storage/gcs, in-process, with
 * the database-backed keys a server uses). Requests are built by fast-check around real state
 * (an object, an open multipart upload with a part, an open resumable session) so that most of
 * them get past authentication: each is signed correctly (AWS SigV4 by @smithy/signature-v4,
 * GCS V4 by @google-cloud/storage) and then, one time in three, tampered with (signature, key id,
 * date, expiry, both kinds of auth at once, duplicated auth headers). What they carry: bad and
 * hostile XML for CompleteMultipartUpload and DeleteObjects (not XML, truncated, DOCTYPE
 * entities, 10,001 parts, unordered and duplicated parts, wrong ETags), part numbers from -1 to
 * 2^64 and non-numbers, Content-Range and Range in every shape, keys up to 5,000 characters and
 * with "..", NUL or unicode, garbage Content-MD5 / Content-Length / x-amz-copy-source, duplicated
 * headers, other methods; conditional writes (If-None-Match / If-Match), x-amz-copy-source-if-* and
 * copy ranges, UploadPartCopy, GET/HEAD ?partNumber=, server-side-encryption and checksum headers,
 * and aws-chunked bodies, well framed or broken (bad sizes, missing final chunk or trailer, wrong
 * trailing checksum, bytes after the end, bogus chunk signatures, declared lengths that lie).
 * About a third of the S3 requests are targeted writes (planTargeted): right but for one thing, so
 * that the store's own checks answer (x-amz-checksum-* of every algorithm right, wrong or not a
 * digest; a signed sha256 over other bytes; unsigned-trailer and correctly signed streaming
 * bodies, right or spoiled; conditional PUTs), each checked against the answer S3 gives.
 *
 * Checked for every answer: no 5xx (except S3's documented 501 NotImplemented for a sub-resource
 * it does not serve, counted apart); an error is in the protocol's own format (S3: an XML
 * <Error> with Code and Message; GCS XML API: the same shape; HEAD: no body); and a request that
 * was refused (status >= 400) changed no file of the store (every file's path, size and mtime,
 * temp files included). At the end the real multipart upload, after every refused Complete,
 * still completes; every targeted key and part holds what the last accepted write of it put there;
 * and each refusal path and accepted form of the targeted writes was reached at least once (a
 * coverage floor, so that a change to the generators cannot make them silently unreachable).
 */
const RUNS = Number(process.env.EASEL_STORAGE_FUZZ_RUNS ?? 2000);
const SEED = Number(process.env.EASEL_STORAGE_FUZZ_SEED ?? Date.now() % 1_000_000_000);
const HOST = "easel.test";
const ORIGIN = `http://${HOST}`;

type Handler = (req: Request) => Promise<Response>;
const s3Handlers = s3Route as unknown as Record<string, Handler>;
const gcsHandlers = gcsRoute as unknown as Record<string, Handler>;

class NodeSha256 {
  private h: crypto.Hash | crypto.Hmac;
  constructor(secret?: string | Uint8Array) {
    this.h = secret ? crypto.createHmac("sha256", secret) : crypto.createHash("sha256");
  }
  update(data: string | Uint8Array) {
    this.h.update(data);
  }
  async digest() {
    return new Uint8Array(this.h.digest());
  }
  reset() {}
}

let root: string;
let signer: SignatureV4;
let accessKeyId: string;
let secretAccessKey: string;
let gcs: Storage;
const real = { uploadId: "", abortId: "", partEtag: "", sumUploadId: "", session: "", objectKey: "a/existing.txt", mpKey: "mp/object.bin", gcsKey: "g/session.bin" };

/**
 * Every file of the store: relative path → size and mtime. A resumable session's `data` file is
 * compared by size only, absent counting as empty: its state is `committed` in the session's
 * record (compared in full), and a refused chunk is written past it and cut back, which touches
 * the file without changing what the session holds.
 */
function storeFiles(): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = fs.statSync(p, { throwIfNoEntry: false });
        if (!st) continue;
        if (e.name === "data" && path.basename(path.dirname(path.dirname(p))) === ".sessions") {
          if (st.size > 0) out.set(path.relative(root, p), `${st.size}`);
        } else out.set(path.relative(root, p), `${st.size}:${st.mtimeMs}`);
      }
    }
  };
  walk(root);
  return out;
}

function diffFiles(a: Map<string, string>, b: Map<string, string>): string[] {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys].filter((k) => a.get(k) !== b.get(k)).map((k) => `${k}: ${a.get(k) ?? "absent"} → ${b.get(k) ?? "absent"}`);
}

// ---------- S3 requests ----------

const asBody = (b: string | Uint8Array | null | undefined): BodyInit | undefined => (b === null || b === undefined ? undefined : typeof b === "string" ? b : new Uint8Array(b));

type Spec = {
  method: string;
  path: string;
  query: [string, string][];
  headers: [string, string][];
  body: Uint8Array | string | null;
  sha256?: boolean;
  payload?: string;
  /** A signed streaming body: framed once the request is signed, from its signature (then kept in `body`). */
  frame?: (signing: StreamSigning | null) => Uint8Array;
};

/** Percent-encodes a key the way S3 clients do (each segment, slashes kept). */
const encodeKey = (key: string) => key.split("/").map((s) => encodeURIComponent(s)).join("/");

async function signS3(spec: Spec, opts: { presign?: boolean; date?: Date; expires?: number } = {}): Promise<Request> {
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of spec.query) query[k] = k in query ? [...([] as string[]).concat(query[k]), v] : v;
  const headers: Record<string, string> = { host: HOST };
  for (const [k, v] of spec.headers) headers[k] = v; // duplicates are appended after signing
  const body = typeof spec.body === "string" ? Buffer.from(spec.body) : spec.body;
  const payload = spec.payload ?? (spec.sha256 && body ? crypto.createHash("sha256").update(body).digest("hex") : "UNSIGNED-PAYLOAD");
  const request = { method: spec.method, protocol: "http:", hostname: HOST, path: spec.path, query, headers: { ...headers, "x-amz-content-sha256": payload }, body };
  const signed = opts.presign
    ? await signer.presign(request, { signingDate: opts.date, expiresIn: opts.expires ?? 900 })
    : await signer.sign(request, { signingDate: opts.date });
  if (spec.frame) spec.body = spec.frame(streamSigning(secretAccessKey, "us-east-1", new Headers(signed.headers)));
  const qs = Object.entries(signed.query ?? {})
    .flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x]) : [[k, v as string]]))
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v ?? "")}`)
    .join("&");
  const h = new Headers();
  for (const [k, v] of Object.entries(signed.headers)) h.set(k, v);
  const sent = spec.frame ? spec.body : body;
  return new Request(`${ORIGIN}${spec.path}${qs ? `?${qs}` : ""}`, { method: spec.method, headers: h, body: spec.method === "GET" || spec.method === "HEAD" ? undefined : asBody(sent) });
}

const weirdKey = fc.oneof(
  fc.constantFrom("a/existing.txt", "mp/object.bin", "x", "a/../../etc/passwd", "..", ".tmp/x", "a//b", "a/%2e%2e/b", "nul\u0000key", "\u{1F600}/é", " "),
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.integer({ min: 1000, max: 5000 }).map((n) => "k".repeat(n)),
);
const bucketName = fc.oneof({ weight: 8, arbitrary: fc.constant("easel") }, fc.constantFrom("EASEL", "nobucket", "..", "a", "xn--bucket", "b".repeat(70), "easel.", "192.168.1.1"));
const partNumber = fc.oneof(
  fc.constantFrom("1", "2", "0", "-1", "10000", "10001", "2147483648", "9007199254740993", "18446744073709551616", "1e3", "abc", "", " 1", "01", "1.5", "0x10", "Infinity", "NaN"),
  fc.integer({ min: -5, max: 20_000 }).map(String),
);
const uploadIdArb = () => fc.oneof({ weight: 6, arbitrary: fc.constant(real.uploadId) }, fc.constantFrom("", "nope", "../../../../etc", "%00", "x".repeat(3000)), fc.constant(real.uploadId.slice(0, -1) + "A"));
const partXml = (n: string | number, etag: string) => `<Part><PartNumber>${n}</PartNumber><ETag>${etag}</ETag></Part>`;
const completeXml = () =>
  fc.oneof(
    fc.constantFrom(
      "",
      "not xml at all",
      "<CompleteMultipartUpload>",
      "<CompleteMultipartUpload></CompleteMultipartUpload>",
      `<CompleteMultipartUpload>${partXml(1, "\"deadbeef\"")}</CompleteMultipartUpload>`,
      `<CompleteMultipartUpload>${partXml(2, real.partEtag)}${partXml(1, real.partEtag)}</CompleteMultipartUpload>`,
      `<CompleteMultipartUpload>${partXml(1, real.partEtag)}${partXml(1, real.partEtag)}</CompleteMultipartUpload>`,
      `<CompleteMultipartUpload>${partXml(-1, real.partEtag)}</CompleteMultipartUpload>`,
      `<CompleteMultipartUpload>${partXml("99999999999999999999", real.partEtag)}</CompleteMultipartUpload>`,
      `<CompleteMultipartUpload>${partXml(1, "")}</CompleteMultipartUpload>`,
      `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber></Part></CompleteMultipartUpload>`,
      `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><CompleteMultipartUpload>${partXml(1, "&c;")}</CompleteMultipartUpload>`,
      `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><CompleteMultipartUpload>${partXml(1, "&e;")}</CompleteMultipartUpload>`,
      `<CompleteMultipartUpload>${partXml(1, `<![CDATA[${real.partEtag}]]>`)}</CompleteMultipartUpload>`,
      `<CompleteMultipartUpload>${"<Part>".repeat(5000)}</CompleteMultipartUpload>`,
      `<CompleteMultipartUpload>${Array.from({ length: 10_001 }, (_, i) => partXml(i + 1, real.partEtag)).join("")}</CompleteMultipartUpload>`,
      `<Delete><Object><Key>a/existing.txt</Key></Object></Delete>`,
    ),
    fc.string({ maxLength: 300 }).map((s) => `<CompleteMultipartUpload>${s}</CompleteMultipartUpload>`),
    fc.string({ maxLength: 300 }),
  );
const deleteXml = fc.oneof(
  fc.constantFrom("", "<Delete>", "<Delete></Delete>", "<Delete><Object></Object></Delete>", `<Delete>${"<Object><Key>k</Key></Object>".repeat(1001)}</Delete>`, "<Delete><Quiet>maybe</Quiet></Delete>"),
  fc.string({ maxLength: 200 }).map((s) => `<Delete><Object><Key>${s}</Key></Object></Delete>`),
);
const headerValue = fc.oneof(
  fc.constantFrom("", " ", "bytes=0-0", "bytes=5-1", "bytes=-0", "bytes=0-", "bytes=99999999999999999999-", "bytes=0-1,3-4", "bytes 0-1/2", "*", "x".repeat(9000), "1", "-1"),
  // Conditions, checksums, encryption and copy ranges: real-looking values as well as broken ones.
  fc.constantFrom('"5d41402abc4b2a76b9719d911017c592"', '"ffffffffffffffffffffffffffffffff"', "W/\"x\"", "Wed, 21 Oct 2015 07:28:00 GMT", "Thu, 01 Jan 2099 00:00:00 GMT", "not a date"),
  fc.constantFrom("AES256", "aws:kms", "aws:kms:dsse", "CRC32", "CRC32C", "SHA1", "SHA256", "CRC64NVME", "MD5", "COMPOSITE", "FULL_OBJECT", "ENABLED"),
  fc.constantFrom("AAAAAA==", "NhCmhg==", "=", "!!!!", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "x-amz-checksum-crc32", "x-amz-checksum-crc32,x-amz-checksum-sha256", "aws-chunked", "gzip,aws-chunked"),
  fc.constantFrom("bytes=0-3", "bytes=0-99999999", "bytes=3-0", "bytes=0-", "bytes=-5", "/easel/a/existing.txt", "easel/mp/object.bin", "/easel/a/existing.txt?versionId=null", "/other/a/existing.txt", "/easel/ws/other/x"),
  fc.string({ maxLength: 60 }).map((s) => s.replace(/[\r\n\u0000]/g, "")),
);
const HEADER_NAMES = [
  "range", "content-range", "content-md5", "x-amz-copy-source", "x-amz-metadata-directive", "if-match", "if-none-match", "if-modified-since", "if-unmodified-since",
  "content-type", "x-amz-meta-x", "content-encoding", "x-amz-date", "authorization",
  "x-amz-copy-source-range", "x-amz-copy-source-if-match", "x-amz-copy-source-if-none-match", "x-amz-copy-source-if-modified-since", "x-amz-copy-source-if-unmodified-since",
  "x-amz-server-side-encryption", "x-amz-server-side-encryption-customer-algorithm", "x-amz-server-side-encryption-customer-key", "x-amz-copy-source-server-side-encryption-customer-key",
  "x-amz-checksum-crc32", "x-amz-checksum-crc32c", "x-amz-checksum-crc64nvme", "x-amz-checksum-sha1", "x-amz-checksum-sha256", "x-amz-checksum-algorithm", "x-amz-checksum-type", "x-amz-sdk-checksum-algorithm", "x-amz-checksum-mode",
  "x-amz-decoded-content-length", "x-amz-trailer",
] as const;
const extraHeaders = fc.array(fc.tuple(fc.constantFrom(...HEADER_NAMES), headerValue).filter(([, v]) => isHeaderSafe(v)), { maxLength: 3 });

/**
 * An aws-chunked body: well framed (with a right or wrong trailing checksum) or broken in one of
 * the ways a client or an attacker could break it.
 */
const chunkedBody = fc
  .record({
    data: fc.uint8Array({ maxLength: 600 }),
    shape: fc.constantFrom("ok", "bad-crc", "no-final", "bad-hex", "huge-size", "no-trailer", "trailing-bytes", "chunk-ext", "short", "empty"),
    declared: fc.oneof(fc.constant<number | null>(null), fc.integer({ min: -1, max: 2000 })),
    payload: fc.constantFrom("STREAMING-UNSIGNED-PAYLOAD-TRAILER", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER", "STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD", "STREAMING-GARBAGE"),
  })
  .map(({ data, shape, declared, payload }) => {
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(shape === "bad-crc" ? (zlib.crc32(data) ^ 1) >>> 0 : zlib.crc32(data));
    const trailer = shape === "no-trailer" ? "" : `x-amz-checksum-crc32:${crc.toString("base64")}\r\n`;
    const size = shape === "huge-size" ? "fffffffffffff" : shape === "bad-hex" ? "zz" : data.length.toString(16);
    const ext = shape === "chunk-ext" ? ";chunk-signature=" + "0".repeat(64) : "";
    const framed = Buffer.concat([
      Buffer.from(shape === "empty" ? "" : `${size}${ext}\r\n`),
      shape === "empty" ? Buffer.alloc(0) : Buffer.from(shape === "short" ? data.subarray(0, data.length >> 1) : data),
      Buffer.from(shape === "empty" || shape === "no-final" ? "" : `\r\n0${ext}\r\n${trailer}\r\n`),
      Buffer.from(shape === "trailing-bytes" ? "garbage after the end" : ""),
    ]);
    const headers: [string, string][] = [
      ["content-encoding", "aws-chunked"],
      ["x-amz-decoded-content-length", String(declared ?? data.length)],
      ["x-amz-trailer", "x-amz-checksum-crc32"],
    ];
    return { body: new Uint8Array(framed), headers, payload };
  });
function isHeaderSafe(v: string): boolean {
  try {
    new Headers([["x", v]]);
    return true;
  } catch {
    return false;
  }
}


// ---------- targeted S3 writes: right except for the one thing a case spoils ----------

/**
 * Requests that pass authentication and framing so that the store's own checks are what answers:
 * x-amz-checksum-* headers right or wrong (or not a digest at all), with the payload unsigned,
 * signed, or signed over other bytes; aws-chunked bodies with an unsigned trailing checksum (right,
 * wrong, missing, or not the one announced); SigV4-streaming bodies with valid chunk signatures,
 * with or without a signed trailer, or spoiled after signing; conditional PUTs on an existing key
 * and on new ones. Each names the answers S3 gives it (checked when the request is not otherwise
 * tampered with). Objects go to keys of their own (`sum/<slot>.bin`, `cond/…`) and parts to an
 * upload of their own, so no other operation's state is disturbed.
 */
type Target = { target: "put" | "part"; slot: number };
const target = { target: fc.constantFrom<"put" | "part">("put", "part"), slot: fc.integer({ min: 0, max: 2 }) };
const targetedData = fc.uint8Array({ maxLength: 3000 });
const cuts = fc.array(fc.nat({ max: 3000 }), { maxLength: 3 });

const checksumWrite = fc.record({
  ...target,
  algorithm: fc.constantFrom(...CHECKSUMS),
  value: fc.oneof({ weight: 2, arbitrary: fc.constant("right" as const) }, { weight: 2, arbitrary: fc.constant("wrong" as const) }, { weight: 1, arbitrary: fc.constant("malformed" as const) }),
  payload: fc.oneof({ weight: 2, arbitrary: fc.constant("unsigned" as const) }, { weight: 2, arbitrary: fc.constant("signed" as const) }, { weight: 1, arbitrary: fc.constant("mismatch" as const) }),
  sdkHeader: fc.boolean(),
  data: targetedData,
});
const chunkedTrailer = fc.record({ ...target, algorithm: fc.constantFrom(...CHECKSUMS), trailer: fc.constantFrom("right", "wrong", "missing", "unannounced"), cuts, data: targetedData });
const chunkedSigned = fc.record({
  ...target,
  algorithm: fc.constantFrom(...CHECKSUMS),
  withTrailer: fc.boolean(),
  trailer: fc.constantFrom("right", "wrong"),
  tamper: fc.oneof({ weight: 4, arbitrary: fc.constant<SignedTamper>("none") }, fc.constantFrom<SignedTamper>(...SIGNED_TAMPERS.filter((t) => t !== "none"))),
  cuts,
  data: fc.uint8Array({ minLength: 1, maxLength: 3000 }),
});
const condWrite = fc.record({ condition: fc.constantFrom("if-none-match-existing", "if-match-right", "if-match-wrong", "if-none-match-new", "if-match-missing"), data: fc.uint8Array({ maxLength: 200 }) });

type TargetedCase =
  | { op: "checksum-write"; c: typeof checksumWrite extends fc.Arbitrary<infer T> ? T : never }
  | { op: "chunked-trailer"; c: typeof chunkedTrailer extends fc.Arbitrary<infer T> ? T : never }
  | { op: "chunked-signed"; c: typeof chunkedSigned extends fc.Arbitrary<infer T> ? T : never }
  | { op: "cond-write"; c: typeof condWrite extends fc.Arbitrary<infer T> ? T : never };

/** A targeted request and the answers S3 gives it: [status, error code or "" for none]. */
type Planned = { spec: Spec; variant: string; expect: [number, string][]; write?: { key: string; slot: number; target: "put" | "part" } };

const TARGET_KEY = "sum/upload.bin";
const sha256Hex = (bytes: Uint8Array | string) => crypto.createHash("sha256").update(bytes).digest("hex");
let newKeys = 0;

function targetRequest(t: Target): Pick<Spec, "path" | "query"> & { key: string } {
  if (t.target === "put") return { path: `/storage/s3/easel/sum/${t.slot}.bin`, query: [], key: `sum/${t.slot}.bin` };
  return { path: `/storage/s3/easel/${encodeKey(TARGET_KEY)}`, query: [["partNumber", String(t.slot + 1)], ["uploadId", real.sumUploadId]], key: TARGET_KEY };
}

const chunkedHeaders = (length: number, trailer: string | null): [string, string][] => [
  ["content-encoding", "aws-chunked"],
  ["x-amz-decoded-content-length", String(length)],
  ...(trailer ? ([["x-amz-trailer", trailer]] as [string, string][]) : []),
];

async function planTargeted(t: TargetedCase): Promise<Planned> {
  switch (t.op) {
    case "checksum-write": {
      const c = t.c;
      const { path: p, query, key } = targetRequest(c);
      const right = await checksumOf(c.algorithm, c.data);
      const value = c.value === "right" ? right : c.value === "wrong" ? wrongChecksum(right) : c.data.length % 2 ? right.slice(2) : "not base64!";
      const headers: [string, string][] = [[`x-amz-checksum-${c.algorithm}`, value]];
      if (c.sdkHeader) headers.push(["x-amz-sdk-checksum-algorithm", c.algorithm.toUpperCase()]);
      const payload = c.payload === "unsigned" ? "UNSIGNED-PAYLOAD" : sha256Hex(c.payload === "signed" ? c.data : Buffer.concat([c.data, Buffer.from("!")]));
      // S3 checks the declared value's form before reading, then the signed sha256, then the checksum.
      const expect: [number, string][] =
        c.value === "malformed" ? [[400, "InvalidRequest"]] : c.payload === "mismatch" ? [[400, "XAmzContentSHA256Mismatch"]] : c.value === "wrong" ? [[400, "BadDigest"]] : [[200, ""]];
      return { spec: { method: "PUT", path: p, query, headers, body: c.data, payload }, variant: `${c.algorithm} ${c.value} ${c.payload}`, expect, write: { key, slot: c.slot, target: c.target } };
    }
    case "chunked-trailer": {
      const c = t.c;
      const { path: p, query, key } = targetRequest(c);
      const announced = `x-amz-checksum-${c.algorithm}`;
      const sum = await checksumOf(c.algorithm, c.data);
      const other = CHECKSUMS[(CHECKSUMS.indexOf(c.algorithm) + 1) % CHECKSUMS.length];
      const trailers: [string, string][] =
        c.trailer === "right" ? [[announced, sum]] : c.trailer === "wrong" ? [[announced, wrongChecksum(sum)]] : c.trailer === "missing" ? [] : [[`x-amz-checksum-${other}`, await checksumOf(other, c.data)]];
      const expect: [number, string][] = c.trailer === "right" ? [[200, ""]] : c.trailer === "wrong" ? [[400, "BadDigest"]] : [[400, "MalformedTrailerError"]];
      const body = frameUnsigned(splitAt(c.data, c.cuts), trailers);
      const spec: Spec = { method: "PUT", path: p, query, headers: chunkedHeaders(c.data.length, announced), body, payload: "STREAMING-UNSIGNED-PAYLOAD-TRAILER" };
      return { spec, variant: `${c.algorithm} ${c.trailer}`, expect, write: { key, slot: c.slot, target: c.target } };
    }
    case "chunked-signed": {
      const c = t.c;
      const { path: p, query, key } = targetRequest(c);
      const announced = `x-amz-checksum-${c.algorithm}`;
      const sum = await checksumOf(c.algorithm, c.data);
      const trailers: [string, string][] | null = c.withTrailer ? [[announced, c.trailer === "right" ? sum : wrongChecksum(sum)]] : null;
      const chunks = splitAt(c.data, c.cuts);
      const tamper: SignedTamper = c.tamper === "trailer-signature" && !c.withTrailer ? "none" : c.tamper;
      const expect: [number, string][] =
        tamper === "none"
          ? c.withTrailer && c.trailer === "wrong"
            ? [[400, "BadDigest"]]
            : [[200, ""]]
          : tamper === "unsigned-chunk"
            ? [[400, "InvalidRequest"], [403, "SignatureDoesNotMatch"]]
            : [[403, "SignatureDoesNotMatch"]];
      const spec: Spec = {
        method: "PUT",
        path: p,
        query,
        headers: chunkedHeaders(c.data.length, c.withTrailer ? announced : null),
        body: null,
        payload: c.withTrailer ? "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER" : "STREAMING-AWS4-HMAC-SHA256-PAYLOAD",
        // A presigned request (a tamper case) has no Authorization to chain from: its body is framed unsigned.
        frame: (signing) => (signing ? frameSigned(chunks, signing, trailers, tamper) : frameUnsigned(chunks, trailers ?? [])),
      };
      return { spec, variant: `${c.withTrailer ? `trailer ${c.trailer}` : "no trailer"} ${tamper}`, expect, write: { key, slot: c.slot, target: c.target } };
    }
    case "cond-write": {
      const c = t.c;
      let etag = (await s3({ method: "HEAD", path: `/storage/s3/easel/${COND_KEY}`, query: [], headers: [], body: null })).headers.get("etag");
      if (!etag) etag = (await s3({ method: "PUT", path: `/storage/s3/easel/${COND_KEY}`, query: [], headers: [], body: "conditional" })).headers.get("etag")!;
      const fresh = `cond/new-${++newKeys}`;
      const [key, condition, expect]: [string, [string, string], [number, string][]] =
        c.condition === "if-none-match-existing"
          ? [COND_KEY, ["if-none-match", "*"], [[412, "PreconditionFailed"]]]
          : c.condition === "if-match-right"
            ? [COND_KEY, ["if-match", etag], [[200, ""]]]
            : c.condition === "if-match-wrong"
              ? [COND_KEY, ["if-match", `"${"f".repeat(32)}"`], [[412, "PreconditionFailed"]]]
              : c.condition === "if-none-match-new"
                ? [fresh, ["if-none-match", "*"], [[200, ""]]]
                : [fresh, ["if-match", etag], [[404, "NoSuchKey"]]];
      return { spec: { method: "PUT", path: `/storage/s3/easel/${key}`, query: [], headers: [condition], body: c.data, sha256: true }, variant: c.condition, expect };
    }
  }
}
const COND_KEY = "cond/existing.txt";

type Tamper = "none" | "signature" | "keyid" | "drop-auth" | "old-date" | "future-date" | "presign" | "presign-expired" | "presign-bad-expires" | "both" | "dup-auth" | "dup-date";
const tampered = fc.constantFrom<Tamper>("signature", "keyid", "drop-auth", "old-date", "future-date", "presign", "presign-expired", "presign-bad-expires", "both", "dup-auth", "dup-date");
const tamper = fc.oneof({ weight: 14, arbitrary: fc.constant<Tamper>("none") }, tampered);

const s3Spec = () =>
  fc
    .record({
      op: fc.oneof(
        {
          weight: 20,
          arbitrary: fc.constantFrom(
            "put", "get", "head", "delete", "create-mp", "upload-part", "list-parts", "complete", "abort", "delete-objects", "list", "acl", "copy", "other-method", "root",
            "conditional-put", "get-part", "upload-part-copy", "chunked-put", "chunked-part",
          ),
        },
        { weight: 3, arbitrary: fc.constant("checksum-write") },
        { weight: 3, arbitrary: fc.constant("chunked-trailer") },
        { weight: 3, arbitrary: fc.constant("chunked-signed") },
        { weight: 2, arbitrary: fc.constant("cond-write") },
      ),
      checksumWrite,
      chunkedTrailer,
      chunkedSigned,
      condWrite,
      // Mostly untampered: these cases are about what the store checks once a request is authenticated.
      targetedTamper: fc.oneof({ weight: 6, arbitrary: fc.constant<Tamper>("none") }, { weight: 1, arbitrary: tampered }),
      chunked: chunkedBody,
      condition: fc.tuple(fc.constantFrom("if-none-match", "if-match"), fc.constantFrom("*", '"ffffffffffffffffffffffffffffffff"', "", "W/\"x\"", '"5d41402abc4b2a76b9719d911017c592"')),
      bucket: bucketName,
      key: weirdKey,
      part: partNumber,
      uploadId: uploadIdArb(),
      xml: completeXml(),
      delXml: deleteXml,
      body: fc.oneof(fc.constant(null), fc.uint8Array({ maxLength: 2048 }), fc.constant("hello")),
      sha256: fc.boolean(),
      extra: extraHeaders,
      dups: fc.array(fc.tuple(fc.constantFrom("content-md5", "range", "x-amz-content-sha256", "content-type", "x-amz-copy-source"), headerValue).filter(([, v]) => isHeaderSafe(v)), { maxLength: 2 }),
      tamper,
      method: fc.constantFrom("PATCH", "PROPFIND", "OPTIONS", "MKCOL"), // Request (and Node's HTTP parser) refuse CONNECT and TRACE before a route sees them
      listQuery: fc.array(fc.tuple(fc.constantFrom("max-keys", "prefix", "delimiter", "marker", "continuation-token", "start-after", "list-type", "encoding-type", "max-uploads", "part-number-marker", "max-parts"), fc.oneof(fc.constantFrom("-1", "0", "1001", "abc", "2", "99999999999999999999"), fc.string({ maxLength: 20 }))), { maxLength: 3 }),
    })
    .map((g) => {
      const obj = `/storage/s3/${encodeURIComponent(g.bucket)}/${encodeKey(g.key)}`;
      const mp = `/storage/s3/easel/${encodeKey(real.mpKey)}`;
      const spec: Spec = { method: "GET", path: obj, query: [], headers: [...g.extra], body: null, sha256: g.sha256 };
      switch (g.op) {
        case "put":
          Object.assign(spec, { method: "PUT", body: g.body ?? "" });
          break;
        case "head":
          spec.method = "HEAD";
          break;
        case "delete":
          spec.method = "DELETE";
          break;
        case "create-mp":
          Object.assign(spec, { method: "POST", query: [["uploads", ""]] });
          break;
        case "upload-part":
          Object.assign(spec, { method: "PUT", path: mp, query: [["partNumber", g.part], ["uploadId", g.uploadId]], body: g.body ?? "" });
          break;
        case "list-parts":
          Object.assign(spec, { path: mp, query: [["uploadId", g.uploadId], ...g.listQuery] });
          break;
        case "complete":
          Object.assign(spec, { method: "POST", path: mp, query: [["uploadId", g.uploadId]], body: g.xml });
          break;
        case "abort":
          // Its own upload: the one Complete is fuzzed against must stay open to be completed at the end.
          Object.assign(spec, { method: "DELETE", path: mp, query: [["uploadId", g.uploadId === real.uploadId ? real.abortId : g.uploadId]] });
          break;
        case "delete-objects":
          Object.assign(spec, { method: "POST", path: `/storage/s3/${encodeURIComponent(g.bucket)}`, query: [["delete", ""]], body: g.delXml });
          break;
        case "list":
          Object.assign(spec, { path: `/storage/s3/${encodeURIComponent(g.bucket)}`, query: g.listQuery });
          break;
        case "acl":
          Object.assign(spec, { method: "PUT", query: [["acl", ""]] });
          break;
        case "copy":
          Object.assign(spec, { method: "PUT", headers: [["x-amz-copy-source", g.extra[0]?.[1] ?? "/easel/a/existing.txt"], ...g.extra] });
          break;
        case "other-method":
          spec.method = g.method;
          break;
        case "conditional-put":
          Object.assign(spec, { method: "PUT", body: g.body ?? "", headers: [g.condition, ...g.extra] });
          break;
        case "get-part":
          Object.assign(spec, { method: g.sha256 ? "HEAD" : "GET", query: [["partNumber", g.part]] });
          break;
        case "upload-part-copy":
          Object.assign(spec, {
            method: "PUT",
            path: mp,
            query: [["partNumber", g.part], ["uploadId", g.uploadId]],
            headers: [["x-amz-copy-source", g.extra[0]?.[1] ?? "/easel/a/existing.txt"], ...g.extra.slice(1)],
          });
          break;
        case "chunked-put":
          Object.assign(spec, { method: "PUT", body: g.chunked.body, headers: [...g.chunked.headers, ...g.extra], payload: g.chunked.payload });
          break;
        case "chunked-part":
          Object.assign(spec, { method: "PUT", path: mp, query: [["partNumber", g.part], ["uploadId", g.uploadId]], body: g.chunked.body, headers: [...g.chunked.headers, ...g.extra], payload: g.chunked.payload });
          break;
        case "root":
          spec.path = "/storage/s3/";
          break;
      }
      const targeted: TargetedCase | null =
        g.op === "checksum-write"
          ? { op: g.op, c: g.checksumWrite }
          : g.op === "chunked-trailer"
            ? { op: g.op, c: g.chunkedTrailer }
            : g.op === "chunked-signed"
              ? { op: g.op, c: g.chunkedSigned }
              : g.op === "cond-write"
                ? { op: g.op, c: g.condWrite }
                : null;
      if (targeted) return { spec, tamper: g.targetedTamper, dups: [] as [string, string][], label: g.op, targeted };
      return { spec, tamper: g.tamper, dups: g.dups, label: g.op, targeted };
    });

async function buildS3(g: { spec: Spec; tamper: Tamper; dups: [string, string][] }): Promise<Request> {
  const { spec } = g;
  const hour = 3600_000;
  let req: Request;
  switch (g.tamper) {
    case "presign":
      req = await signS3(spec, { presign: true });
      break;
    case "presign-expired":
      req = await signS3(spec, { presign: true, date: new Date(Date.now() - 2 * hour), expires: 60 });
      break;
    case "presign-bad-expires": {
      req = await signS3(spec, { presign: true });
      const u = new URL(req.url);
      u.searchParams.set("X-Amz-Expires", ["-1", "0", "604801", "abc", "1e309", "99999999999999999999"][crypto.randomInt(6)]);
      req = new Request(u, req);
      break;
    }
    case "old-date":
      req = await signS3(spec, { date: new Date(Date.now() - hour) });
      break;
    case "future-date":
      req = await signS3(spec, { date: new Date(Date.now() + hour) });
      break;
    default:
      req = await signS3(spec);
  }
  const headers = new Headers(req.headers);
  const auth = headers.get("authorization");
  if (g.tamper === "signature" && auth) {
    const i = auth.lastIndexOf("=") + 1 + crypto.randomInt(64);
    headers.set("authorization", auth.slice(0, i) + (auth[i] === "0" ? "1" : "0") + auth.slice(i + 1));
  }
  if (g.tamper === "keyid" && auth) headers.set("authorization", auth.replace(accessKeyId, "AKIAOTHERKEY00000000"));
  if (g.tamper === "drop-auth") headers.delete("authorization");
  if (g.tamper === "dup-auth" && auth) headers.append("authorization", auth);
  if (g.tamper === "dup-date") headers.append("x-amz-date", "20200101T000000Z");
  let url = req.url;
  if (g.tamper === "both") {
    const pre = await signS3(spec, { presign: true });
    url = pre.url;
  }
  for (const [k, v] of g.dups) headers.append(k, v);
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : typeof spec.body === "string" ? spec.body : (spec.body ?? undefined);
  return new Request(url, { method: req.method, headers, body: asBody(body) });
}

// ---------- GCS requests ----------

const contentRange = fc.oneof(
  fc.constantFrom("bytes */*", "bytes */0", "bytes */-1", "bytes 0-0/0", "bytes 0-9/5", "bytes 5-1/10", "bytes 0-262143/*", "bytes 0-99999999999999999999/*", "bytes */18446744073709551616", "bytes -1-5/10", "bytes 0-4/5", "bytes=0-4/5", "bytes 0-4", "items 0-4/5", "", "bytes  0-4/5", "bytes 0-4/5, bytes 0-4/5", "bytes 262144-262148/262149", "bytes 9007199254740992-9007199254740993/*"),
  fc.tuple(fc.integer({ min: -10, max: 600_000 }), fc.integer({ min: -10, max: 600_000 }), fc.oneof(fc.constant("*"), fc.integer({ min: -1, max: 600_000 }).map(String))).map(([a, b, t]) => `bytes ${a}-${b}/${t}`),
  fc.string({ maxLength: 30 }),
);

const gcsSpec = () =>
  fc.record({
    op: fc.constantFrom("start", "put-session", "status", "cancel", "signed-get", "signed-put", "signed-delete", "signed-head", "unknown-session", "bare"),
    key: weirdKey,
    bucket: bucketName,
    range: contentRange,
    body: fc.oneof(fc.constant(new Uint8Array(0)), fc.uint8Array({ maxLength: 1024 }), fc.constant(new Uint8Array(262_144).fill(7))),
    tamper: fc.oneof({ weight: 6, arbitrary: fc.constant("none") }, fc.constantFrom("signature", "expired", "expires", "date", "email", "headers", "drop-sig", "path")),
    extra: extraHeaders,
    dups: fc.array(fc.tuple(fc.constantFrom("content-range", "x-goog-resumable", "content-type", "range"), headerValue).filter(([, v]) => isHeaderSafe(v)), { maxLength: 2 }),
    resumable: fc.constantFrom("start", "START", "", "stop"),
  });

async function gcsSigned(key: string, bucket: string, action: "read" | "write" | "delete" | "resumable", tamper: string): Promise<string> {
  const now = Date.now();
  // "expired": valid for 60 s; the request is then made with the store's clock 2 h later (exerciseAt).
  const accessibleAt = new Date(now);
  const [signed] = await gcs.bucket(bucket).file(key).getSignedUrl({ version: "v4", action, accessibleAt, expires: accessibleAt.getTime() + (tamper === "expired" ? 60_000 : 600_000) });
  const u = new URL(signed);
  const url = new URL(`${ORIGIN}/storage/gcs${u.pathname}${u.search}`);
  const q = url.searchParams;
  if (tamper === "signature") {
    const sig = q.get("X-Goog-Signature") ?? "";
    const i = crypto.randomInt(sig.length);
    q.set("X-Goog-Signature", sig.slice(0, i) + (sig[i] === "0" ? "1" : "0") + sig.slice(i + 1));
  }
  if (tamper === "expires") q.set("X-Goog-Expires", ["-1", "0", "604801", "abc", "99999999999999999999"][crypto.randomInt(5)]);
  if (tamper === "date") q.set("X-Goog-Date", ["20200101T000000Z", "garbage", "", "99999999T999999Z"][crypto.randomInt(4)]);
  if (tamper === "email") q.set("X-Goog-Credential", (q.get("X-Goog-Credential") ?? "").replace("object-store@easel.internal", "other@evil.test"));
  if (tamper === "headers") q.set("X-Goog-SignedHeaders", "host;x-other");
  if (tamper === "drop-sig") q.delete("X-Goog-Signature");
  if (tamper === "path") url.pathname = url.pathname + "x";
  return url.toString();
}

async function buildGcs(g: { op: string; key: string; bucket: string; range: string; body: Uint8Array; tamper: string; extra: [string, string][]; dups: [string, string][]; resumable: string }): Promise<Request> {
  const headers = new Headers(g.extra);
  let url: string;
  let method = "GET";
  let body: Uint8Array | undefined;
  const session = new URL(real.session);
  switch (g.op) {
    case "start":
      url = await gcsSigned(g.key, g.bucket, "resumable", g.tamper);
      method = "POST";
      headers.set("x-goog-resumable", g.resumable);
      break;
    case "put-session":
    case "status":
    case "unknown-session": {
      if (g.op === "unknown-session") session.searchParams.set("upload_id", g.tamper === "none" ? "A".repeat(32) : g.key.slice(0, 64));
      url = session.toString();
      method = "PUT";
      headers.set("content-range", g.range);
      body = g.op === "status" ? new Uint8Array(0) : g.body;
      break;
    }
    case "cancel":
      session.searchParams.set("upload_id", session.searchParams.get("upload_id")!.slice(0, -1) + "x");
      url = session.toString();
      method = "DELETE";
      break;
    case "signed-put":
      url = await gcsSigned(g.key, g.bucket, "write", g.tamper === "none" ? "signature" : g.tamper);
      method = "PUT";
      body = g.body;
      break;
    case "signed-delete":
      url = await gcsSigned(g.key, g.bucket, "delete", g.tamper === "none" ? "signature" : g.tamper);
      method = "DELETE";
      break;
    case "signed-head":
      url = await gcsSigned(g.key, g.bucket, "read", g.tamper);
      method = "HEAD";
      break;
    case "bare":
      url = `${ORIGIN}/storage/gcs/${encodeURIComponent(g.bucket)}/${encodeKey(g.key)}`;
      method = ["GET", "PUT", "POST", "DELETE", "PATCH"][crypto.randomInt(5)];
      if (method !== "GET") body = g.body;
      break;
    default:
      url = await gcsSigned(g.key, g.bucket, "read", g.tamper);
  }
  for (const [k, v] of g.dups) headers.append(k, v);
  return new Request(url, { method, headers, body: method === "GET" || method === "HEAD" ? undefined : asBody(body) });
}

// ---------- checks ----------

const S3_ERROR = /^<\?xml version="1\.0" encoding="UTF-8"\?>\s*<Error><Code>[A-Za-z0-9]+<\/Code><Message>[^<]*<\/Message>/;
const GCS_ERROR = /^<\?xml version="1\.0" encoding="UTF-8"\?>\s*<Error><Code>[A-Za-z0-9]+<\/Code><Message>[^<]*<\/Message>/;

type Tally = { requests: number; byStatus: Record<string, number>; byCode: Record<string, number>; rejected: number; notImplemented: number; failures: string[] };

type Answer = { status: number; code: string; etag: string | null };

async function exercise(req: Request, handlers: Record<string, Handler>, errorFormat: RegExp, tally: Tally, label: string, okStatuses: number[]): Promise<Answer> {
  const before = storeFiles();
  const method = req.method;
  const handler = handlers[method];
  const res = handler ? await handler(req) : new Response(null, { status: 405 });
  const text = await res.text();
  // A refused body is drained in the background (discardUnreadBody): let that finish before looking at the files.
  await new Promise((r) => setImmediate(r));
  tally.requests++;
  tally.byStatus[res.status] = (tally.byStatus[res.status] ?? 0) + 1;
  const where = `${label} ${method} ${req.url.slice(0, 160)}`;
  if (!handler) return { status: res.status, code: "", etag: null }; // Next answers 405 itself for a method the route does not export
  const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1];
  if (code) tally.byCode[code] = (tally.byCode[code] ?? 0) + 1;
  // A HEAD answer has no body to name its code: its 501 is the same NotImplemented a GET would name
  // (an encryption header, or a sub-resource the store does not serve).
  if (res.status === 501 && (code === "NotImplemented" || (method === "HEAD" && !text))) tally.notImplemented++;
  else if (res.status >= 500) tally.failures.push(`${where} → ${res.status} ${text.slice(0, 200)}`);
  // A status the protocol answers on success (GCS's 499 for a cancelled session) carries no error body.
  const isError = res.status >= 400 && !okStatuses.includes(res.status);
  if (isError && method !== "HEAD" && !errorFormat.test(text)) tally.failures.push(`${where} → ${res.status} not in the protocol's error format: ${text.slice(0, 200)}`);
  if (res.status >= 400 && method === "HEAD" && text) tally.failures.push(`${where} → HEAD ${res.status} with a body`);
  if (res.status >= 400 && !okStatuses.includes(res.status)) {
    tally.rejected++;
    const changed = diffFiles(before, storeFiles());
    if (changed.length) tally.failures.push(`${where} → ${res.status} ${code} changed files: ${changed.slice(0, 3).join("; ")}`);
  }
  return { status: res.status, code: code ?? "", etag: res.headers.get("etag") };
}

const newTally = (): Tally => ({ requests: 0, byStatus: {}, byCode: {}, rejected: 0, notImplemented: 0, failures: [] });

// ---------- setup ----------

async function s3(spec: Spec): Promise<Response> {
  const req = await signS3(spec);
  return s3Handlers[spec.method](req);
}

let deps: Awaited<ReturnType<typeof useTestDeps>>;

beforeAll(async () => {
  deps = await useTestDeps();
  root = path.join(env().dataDir, "objects");
  const creds = await embeddedS3Credentials(deps.db);
  accessKeyId = creds.accessKeyId;
  secretAccessKey = creds.secretAccessKey;
  signer = new SignatureV4({ credentials: creds, region: "us-east-1", service: "s3", sha256: NodeSha256 as never, uriEscapePath: false, applyChecksum: false });
  const identity = await embeddedGcsIdentity(deps.db);
  gcs = new Storage({ projectId: "easel", apiEndpoint: ORIGIN, credentials: { client_email: identity.clientEmail, private_key: identity.privateKeyPem } });

  expect((await s3({ method: "PUT", path: "/storage/s3/easel", query: [], headers: [], body: null })).status).toBe(200);
  expect((await s3({ method: "PUT", path: `/storage/s3/easel/${real.objectKey}`, query: [], headers: [], body: "existing object" })).status).toBe(200);
  const created = await (await s3({ method: "POST", path: `/storage/s3/easel/${real.mpKey}`, query: [["uploads", ""]], headers: [], body: null })).text();
  real.uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(created)![1];
  const other = await (await s3({ method: "POST", path: `/storage/s3/easel/${real.mpKey}`, query: [["uploads", ""]], headers: [], body: null })).text();
  real.abortId = /<UploadId>([^<]+)<\/UploadId>/.exec(other)![1];
  const part = await s3({ method: "PUT", path: `/storage/s3/easel/${real.mpKey}`, query: [["partNumber", "1"], ["uploadId", real.uploadId]], headers: [], body: "part one" });
  real.partEtag = part.headers.get("etag")!;
  const sums = await (await s3({ method: "POST", path: `/storage/s3/easel/${TARGET_KEY}`, query: [["uploads", ""]], headers: [], body: null })).text();
  real.sumUploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(sums)![1];
  expect((await s3({ method: "PUT", path: `/storage/s3/easel/${COND_KEY}`, query: [], headers: [], body: "conditional" })).status).toBe(200);
  const start = await gcsHandlers.POST(new Request(await gcsSigned(real.gcsKey, "easel", "resumable", "none"), { method: "POST", headers: { "x-goog-resumable": "start" } }));
  expect(start.status).toBe(201);
  real.session = start.headers.get("location")!.replace(/^https?:\/\/[^/]+/, ORIGIN);
});

describe("fuzzing the embedded object store's routes", () => {
  it(`S3 (/storage/s3): no 5xx, S3 XML errors, a refused request changes no file`, async () => {
    const tally = newTally();
    /** "<op> <variant> → <status> <code>" for the targeted writes, counted. */
    const targetedOutcomes = new Map<string, number>();
    /** "put <key>" / "part <n>" → the ETag of the last write of it the store accepted. */
    const lastAccepted = new Map<string, string>();
    let completedBy: string | null = null;
    let deletedAfter = false;
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(s3Spec(), async (g) => {
        const planned = g.targeted ? await planTargeted(g.targeted) : null;
        const spec = planned?.spec ?? g.spec;
        const { status, code, etag } = await exercise(await buildS3({ spec, tamper: g.tamper, dups: g.dups }), s3Handlers, S3_ERROR, tally, g.label, []);
        if (planned) {
          const outcome = `${g.label} ${g.tamper === "none" ? planned.variant : `(request tampered: ${g.tamper})`} → ${status}${code ? ` ${code}` : ""}`;
          targetedOutcomes.set(outcome, (targetedOutcomes.get(outcome) ?? 0) + 1);
          if (g.tamper === "none" && !planned.expect.some(([s, c]) => s === status && c === code)) {
            tally.failures.push(`${outcome}: S3 answers ${planned.expect.map(([s, c]) => `${s} ${c}`).join(" or ")} (seed ${SEED})`);
          }
          // What an accepted write left: a later refused one must not have replaced it.
          if (status === 200 && planned.write) lastAccepted.set(`${planned.write.target} ${planned.write.target === "put" ? planned.write.key : planned.write.slot + 1}`, etag ?? "");
        }
        // A generated Complete can be a valid one (CDATA around the right ETag, say): S3 accepts it too.
        if (g.label === "complete" && status === 200 && !completedBy) completedBy = String(g.spec.body).slice(0, 120);
        // Once completed, the object is an ordinary one that a later valid DeleteObject(s) may remove.
        else if (completedBy && status < 300 && (g.label === "delete-objects" || (g.label === "delete" && g.spec.path === `/storage/s3/easel/${encodeKey(real.mpKey)}`))) deletedAfter = true;
      }),
      { numRuns: Math.round(RUNS * 0.6), seed: SEED, endOnFailure: true },
    );
    // The real upload survived every refused Complete, UploadPart and Abort: it still completes, unless
    // a generated Complete was itself valid, in which case the object must now exist.
    let outcome: string;
    if (completedBy) {
      const head = await s3({ method: "HEAD", path: `/storage/s3/easel/${real.mpKey}`, query: [], headers: [], body: null });
      if (deletedAfter) expect([200, 404]).toContain(head.status);
      else expect(head.status, `seed ${SEED}`).toBe(200);
      outcome = `completed during the run by a valid generated Complete (${completedBy}), then ${deletedAfter ? "possibly deleted by a later valid delete" : "present"}`;
    } else {
      // Fuzzed UploadParts with valid numbers may have replaced part 1 or added (small) parts: complete
      // with the first part ListParts names (a last part may be of any size).
      const listed = await (await s3({ method: "GET", path: `/storage/s3/easel/${real.mpKey}`, query: [["uploadId", real.uploadId]], headers: [], body: null })).text();
      const parts = [...listed.matchAll(/<Part>.*?<PartNumber>(\d+)<\/PartNumber>.*?<ETag>([^<]+)<\/ETag>.*?<\/Part>/gs)].map((m) => partXml(m[1], m[2].replace(/&quot;/g, '"')));
      expect(parts.length, listed).toBeGreaterThan(0);
      const done = await s3({ method: "POST", path: `/storage/s3/easel/${real.mpKey}`, query: [["uploadId", real.uploadId]], headers: [], body: `<CompleteMultipartUpload>${parts[0]}</CompleteMultipartUpload>` });
      expect(done.status, await done.clone().text()).toBe(200);
      outcome = "yes";
    }
    console.log(
      `[storage-fuzz] s3 seed ${SEED}: ${tally.requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s; statuses ${JSON.stringify(tally.byStatus)}; ${tally.rejected} refused (files unchanged for all but ${tally.failures.filter((f) => f.includes("changed files")).length}); 501 NotImplemented ${tally.notImplemented}; failures ${tally.failures.length}; error codes ${JSON.stringify(tally.byCode)}; real upload completed afterwards: ${outcome}`,
    );
    console.log(`[storage-fuzz] s3 seed ${SEED}: targeted writes:\n${[...targetedOutcomes].sort(([a], [b]) => (a < b ? -1 : 1)).map(([o, n]) => `  ${n} × ${o}`).join("\n")}`);
    expect(tally.failures.slice(0, 20)).toEqual([]);

    // Every accepted targeted write is what the store holds now: no refused one replaced it.
    const listedParts = await (await s3({ method: "GET", path: `/storage/s3/easel/${TARGET_KEY}`, query: [["uploadId", real.sumUploadId]], headers: [], body: null })).text();
    for (const [what, etag] of lastAccepted) {
      const [kind, name] = what.split(" ");
      if (kind === "put") {
        const head = await s3({ method: "HEAD", path: `/storage/s3/easel/${name}`, query: [], headers: [], body: null });
        expect(head.headers.get("etag"), what).toBe(etag);
      } else {
        const listed = new RegExp(`<PartNumber>${name}</PartNumber>.*?<ETag>([^<]+)</ETag>`, "s").exec(listedParts)?.[1].replace(/&quot;/g, '"');
        expect(listed, `${what} in ${listedParts}`).toBe(etag);
      }
    }

    // Coverage floor: each refusal path and each accepted form was reached (counts above).
    const count = (op: string, answer: RegExp) => [...targetedOutcomes].filter(([o]) => o.startsWith(`${op} `) && !o.includes("request tampered") && answer.test(o.split(" → ")[1])).reduce((n, [, k]) => n + k, 0);
    const floor = {
      "checksum header accepted": count("checksum-write", /^200$/),
      "checksum header BadDigest": count("checksum-write", /^400 BadDigest$/),
      "checksum header InvalidRequest": count("checksum-write", /^400 InvalidRequest$/),
      "signed sha256 XAmzContentSHA256Mismatch": count("checksum-write", /^400 XAmzContentSHA256Mismatch$/),
      "unsigned aws-chunked accepted": count("chunked-trailer", /^200$/),
      "unsigned aws-chunked trailer BadDigest": count("chunked-trailer", /^400 BadDigest$/),
      "unsigned aws-chunked MalformedTrailerError": count("chunked-trailer", /^400 MalformedTrailerError$/),
      "signed aws-chunked accepted": count("chunked-signed", /^200$/),
      "signed aws-chunked bad signature": count("chunked-signed", /^403 SignatureDoesNotMatch$/),
      "signed aws-chunked trailer BadDigest": count("chunked-signed", /^400 BadDigest$/),
      "conditional PUT accepted": count("cond-write", /^200$/),
      "conditional PUT PreconditionFailed": count("cond-write", /^412 PreconditionFailed$/),
    };
    expect(Object.entries(floor).filter(([, n]) => n < 1), `reached: ${JSON.stringify(floor)}`).toEqual([]);
  }, 600_000);

  it(`GCS (/storage/gcs): no 5xx, GCS XML errors, a refused request changes no file`, async () => {
    const tally = newTally();
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(gcsSpec(), async (g) => {
        // 308 (incomplete) and 499 (cancelled) are the resumable protocol's normal answers.
        const req = await buildGcs(g);
        if (g.tamper === "expired") deps.time.advance(2 * 3600_000);
        try {
          await exercise(req, gcsHandlers, GCS_ERROR, tally, g.op, [499]);
        } finally {
          deps.time.reset();
        }
      }),
      { numRuns: Math.round(RUNS * 0.4), seed: SEED, endOnFailure: true },
    );
    console.log(
      `[storage-fuzz] gcs seed ${SEED}: ${tally.requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s; statuses ${JSON.stringify(tally.byStatus)}; ${tally.rejected} refused (files unchanged for all but ${tally.failures.filter((f) => f.includes("changed files")).length}); failures ${tally.failures.length}; error codes ${JSON.stringify(tally.byCode)}`,
    );
    expect(tally.failures.slice(0, 20)).toEqual([]);
  }, 600_000);
});
