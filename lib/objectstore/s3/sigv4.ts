import crypto from "node:crypto";
import { canonicalHeaders, canonicalPath, canonicalQuery, parseCompactDate, rawQueryParams } from "../canonical";
import { S3Error, s3Errors } from "./errors";

export type S3Credentials = { accessKeyId: string; secretAccessKey: string };

/**
 * What signs each chunk of an `aws-chunked` body: the request's signing key and scope, its time,
 * and the request's own signature, which seeds the chain (each chunk's signature covers the one
 * before it).
 */
export type ChunkSigning = { signingKey: Buffer; scope: string; amzDate: string; seedSignature: string };

/**
 * What the signature says about the body: not covered, its sha256 (hex) to check while receiving,
 * or `aws-chunked` framing (`streaming`), with every chunk signed (`signing`) or not, and with
 * trailing headers (`trailer`: a checksum sent after the bytes) or not.
 */
export type PayloadPolicy =
  | { kind: "unsigned" }
  | { kind: "sha256"; hex: string }
  | { kind: "streaming"; signing: ChunkSigning | null; trailer: boolean };

/**
 * How a request was authorized. `presigned`: by a URL handed to someone else (an uploader's
 * browser), which grants exactly its method, key and signed headers. `header`: by the store's key
 * pair itself in the Authorization header (Easel's server, an operator's S3 client).
 */
export type SigV4Auth = { mode: "presigned" | "header"; payload: PayloadPolicy };

/**
 * `x-amz-*` headers that may be present without being signed, as S3 allows them: the payload hash
 * already takes part in the canonical request (a changed value fails the signature), and a CDN
 * in front of the store (CloudFront) adds its request id to every request it forwards. Neither
 * asks the store to do anything.
 */
const UNSIGNED_AMZ_ALLOWED = new Set(["x-amz-content-sha256", "x-amz-cf-id"]);

const ALGORITHM = "AWS4-HMAC-SHA256";
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;
/** S3 refuses header-signed requests whose time is further than this from its own. */
const MAX_SKEW_MS = 15 * 60 * 1000;

type Parsed = {
  accessKeyId: string;
  scopeDate: string;
  region: string;
  service: string;
  signedAt: Date;
  amzDate: string;
  signedHeaders: string[];
  signature: string;
  payload: string;
  /** Query parameters that take part in the canonical query (all but the signature). */
  params: [string, string][];
};

/**
 * Authenticates an S3 request signed with AWS Signature Version 4, either presigned (the
 * signature in the query string) or with an `Authorization` header, against the store's one key
 * pair. Time is judged by `now` (Easel's clock), so expiry follows the test clock.
 */
export function verifySigV4(req: Request, url: URL, credentials: S3Credentials, now: Date, mountPath = ""): SigV4Auth {
  const params = rawQueryParams(url.search);
  const authorization = req.headers.get("authorization");
  let parsed: Parsed;
  const presigned = params.some(([name]) => name === "X-Amz-Algorithm");
  if (presigned) parsed = parsePresigned(params, req, now);
  else if (authorization?.startsWith(`${ALGORITHM} `)) parsed = parseHeader(authorization, params, req, now);
  else if (authorization) throw s3Errors.invalidRequest("The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.");
  else throw s3Errors.accessDenied("Anonymous access is not allowed; sign the request with AWS Signature Version 4.");

  if (parsed.accessKeyId !== credentials.accessKeyId) {
    throw new S3Error("InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.", 403, { AWSAccessKeyId: parsed.accessKeyId });
  }
  if (parsed.service !== "s3") throw new S3Error("AuthorizationHeaderMalformed", `The credential names service "${parsed.service}"; expected "s3".`, 400);
  if (!parsed.signedHeaders.includes("host")) throw new S3Error("AuthorizationHeaderMalformed", "The host header must be signed.", 400);

  const scope = `${parsed.scopeDate}/${parsed.region}/${parsed.service}/aws4_request`;
  const key = signingKey(credentials.secretAccessKey, parsed.scopeDate, parsed.region, parsed.service);
  const signedAs = (path: string, host: string | null) => {
    const canonicalRequest = [
      req.method,
      canonicalPath(path),
      canonicalQuery(parsed.params, "X-Amz-Signature"),
      canonicalHeaders(parsed.signedHeaders, (name) => (name === "host" && host !== null ? host : req.headers.get(name))),
      parsed.signedHeaders.join(";"),
      parsed.payload,
    ].join("\n");
    const stringToSign = [ALGORITHM, parsed.amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
    return { canonicalRequest, stringToSign, matches: safeEqual(hmac(key, stringToSign).toString("hex"), parsed.signature) };
  };
  const standard = signedAs(url.pathname, null);
  // s3cmd, given an endpoint with a path (`host_base = host:port/storage/s3`), signs the mount as
  // part of the host and the path below it; the request names the same resource either way.
  const mounted = !standard.matches && mountPath && url.pathname.startsWith(`${mountPath}/`) ? signedAs(url.pathname.slice(mountPath.length), `${req.headers.get("host") ?? ""}${mountPath}`) : null;
  if (!standard.matches && !mounted?.matches) {
    throw s3Errors.signatureMismatch({ AWSAccessKeyId: parsed.accessKeyId, StringToSign: standard.stringToSign, CanonicalRequest: standard.canonicalRequest });
  }
  refuseUnsignedAmzHeaders(req, parsed.signedHeaders);
  const signing: ChunkSigning = { signingKey: key, scope, amzDate: parsed.amzDate, seedSignature: parsed.signature };
  return { mode: presigned ? "presigned" : "header", payload: payloadPolicy(parsed.payload, signing) };
}

/**
 * A signature covers only the headers it lists; an `x-amz-*` header asks S3 to do something
 * (copy from another key, set an ACL, tags, storage class, encryption, a checksum), so one that
 * is present but unsigned would let whoever holds a presigned URL widen what it grants. S3
 * refuses such a request, and so does the store, for presigned and header-signed requests alike:
 * every S3 client signs the `x-amz-*` headers it sends, so a request that passes here passes on S3.
 */
function refuseUnsignedAmzHeaders(req: Request, signedHeaders: string[]): void {
  const signed = new Set(signedHeaders.map((name) => name.toLowerCase()));
  const unsigned: string[] = [];
  req.headers.forEach((_value, name) => {
    if (name.startsWith("x-amz-") && !signed.has(name) && !UNSIGNED_AMZ_ALLOWED.has(name)) unsigned.push(name);
  });
  if (unsigned.length) {
    throw new S3Error("AccessDenied", "There were headers present in the request which were not signed", 403, { HeadersNotSigned: unsigned.join(", ") });
  }
}

function parsePresigned(params: [string, string][], req: Request, now: Date): Parsed {
  const get = (name: string) => params.find(([n]) => n === name)?.[1];
  const bad = (message: string) => new S3Error("AuthorizationQueryParametersError", message, 400);
  if (get("X-Amz-Algorithm") !== ALGORITHM) throw bad(`X-Amz-Algorithm only supports "${ALGORITHM}".`);
  const credential = parseCredential(get("X-Amz-Credential"), bad);
  const amzDate = get("X-Amz-Date") ?? "";
  const signedAt = parseCompactDate(amzDate);
  if (!signedAt) throw bad("X-Amz-Date must be in the ISO8601 Long Format \"yyyyMMdd'T'HHmmss'Z'\".");
  const expires = Number(get("X-Amz-Expires"));
  // Only a value that is not a whole number is malformed (400); a lifetime out of range is a
  // refusal to authorize (403 AccessDenied), as S3 answers it.
  if (!Number.isInteger(expires)) throw bad("X-Amz-Expires should be a whole number of seconds.");
  if (expires > MAX_PRESIGN_SECONDS) {
    throw s3Errors.accessDenied(`X-Amz-Expires must be less than a week (in seconds) that is, the given X-Amz-Expires must be less than ${MAX_PRESIGN_SECONDS} seconds`);
  }
  if (expires < 0) throw s3Errors.accessDenied("X-Amz-Expires must be non-negative");
  // A URL valid for 0 seconds is expired from the moment it was signed.
  if (expires === 0) throw s3Errors.accessDenied("Request has expired");
  const signature = get("X-Amz-Signature");
  const signedHeaders = get("X-Amz-SignedHeaders");
  if (!signature || !signedHeaders) throw bad("Query-string authentication requires X-Amz-Signature and X-Amz-SignedHeaders.");
  if (amzDate.slice(0, 8) !== credential.scopeDate) throw bad("The date of X-Amz-Credential does not match X-Amz-Date.");
  if (now.getTime() > signedAt.getTime() + expires * 1000) throw s3Errors.accessDenied("Request has expired");
  if (signedAt.getTime() - now.getTime() > MAX_SKEW_MS) throw s3Errors.accessDenied("Request is not valid yet");
  return {
    ...credential,
    amzDate,
    signedAt,
    signature,
    signedHeaders: signedHeaders.split(";"),
    payload: get("X-Amz-Content-Sha256") ?? req.headers.get("x-amz-content-sha256") ?? "UNSIGNED-PAYLOAD",
    params,
  };
}

function parseHeader(authorization: string, params: [string, string][], req: Request, now: Date): Parsed {
  const bad = (message: string) => new S3Error("AuthorizationHeaderMalformed", message, 400);
  const fields = new Map(
    authorization
      .slice(ALGORITHM.length + 1)
      .split(",")
      .map((part) => part.trim().split("=") as [string, string?])
      .map(([k, v]) => [k, v ?? ""]),
  );
  const credential = parseCredential(fields.get("Credential"), bad);
  const signature = fields.get("Signature");
  const signedHeaders = fields.get("SignedHeaders");
  if (!signature || !signedHeaders) throw bad("The authorization header requires Credential, SignedHeaders and Signature.");
  const amzDate = req.headers.get("x-amz-date") ?? "";
  const signedAt = parseCompactDate(amzDate);
  if (!signedAt) throw s3Errors.accessDenied("AWS authentication requires a valid x-amz-date header.");
  if (amzDate.slice(0, 8) !== credential.scopeDate) throw bad("The date of the credential does not match x-amz-date.");
  if (Math.abs(signedAt.getTime() - now.getTime()) > MAX_SKEW_MS) {
    throw new S3Error("RequestTimeTooSkewed", "The difference between the request time and the current time is too large.", 403, {
      RequestTime: amzDate,
      ServerTime: now.toISOString(),
      MaxAllowedSkewMilliseconds: String(MAX_SKEW_MS),
    });
  }
  const payload = req.headers.get("x-amz-content-sha256");
  if (!payload) throw s3Errors.invalidRequest("Missing required header for this request: x-amz-content-sha256");
  return { ...credential, amzDate, signedAt, signature, signedHeaders: signedHeaders.split(";"), payload, params };
}

function parseCredential(value: string | undefined, bad: (message: string) => S3Error) {
  const parts = (value ?? "").split("/");
  if (parts.length !== 5 || parts[4] !== "aws4_request" || !/^\d{8}$/.test(parts[1])) {
    throw bad("The credential must be <access key>/<yyyymmdd>/<region>/s3/aws4_request.");
  }
  return { accessKeyId: parts[0], scopeDate: parts[1], region: parts[2], service: parts[3] };
}

function payloadPolicy(payload: string, signing: ChunkSigning): PayloadPolicy {
  if (payload === "UNSIGNED-PAYLOAD") return { kind: "unsigned" };
  if (/^[0-9a-f]{64}$/.test(payload)) return { kind: "sha256", hex: payload };
  if (payload === "STREAMING-UNSIGNED-PAYLOAD-TRAILER") return { kind: "streaming", signing: null, trailer: true };
  if (payload === "STREAMING-AWS4-HMAC-SHA256-PAYLOAD") return { kind: "streaming", signing, trailer: false };
  if (payload === "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER") return { kind: "streaming", signing, trailer: true };
  // SigV4a (ECDSA) chunk signatures need the signer's public key pair, which this store has no use for.
  if (payload.startsWith("STREAMING-")) {
    throw s3Errors.notImplemented(`${payload} payloads are not supported; send STREAMING-UNSIGNED-PAYLOAD-TRAILER, STREAMING-AWS4-HMAC-SHA256-PAYLOAD[-TRAILER], UNSIGNED-PAYLOAD or a signed SHA-256.`);
  }
  throw new S3Error("InvalidArgument", "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, STREAMING-*, or a hex SHA-256 digest.", 400);
}

const keyCache = new Map<string, Buffer>();

function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  const id = `${crypto.createHash("sha256").update(secret).digest("hex")}/${date}/${region}/${service}`;
  const hit = keyCache.get(id);
  if (hit) return hit;
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), "aws4_request");
  if (keyCache.size > 64) keyCache.clear();
  keyCache.set(id, key);
  return key;
}

export function hmac(key: string | Buffer, data: string): Buffer {
  return crypto.createHmac("sha256", key).update(data).digest();
}

function sha256Hex(data: string): string {
  return crypto.createHash("sha256").update(data).digest("hex");
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}
