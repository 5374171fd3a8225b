import { CHECKSUM_ALGORITHMS, DIGEST_BYTES, isChecksumAlgorithm, type ChecksumAlgorithm, type StoredChecksum } from "../disk/checksum-algorithms";
import { S3Error, s3Errors } from "./errors";
import type { PayloadPolicy } from "./sigv4";

/** `x-amz-checksum-crc32` and its kin: where a checksum travels, as a header or a trailer. */
export const checksumHeader = (algorithm: ChecksumAlgorithm) => `x-amz-checksum-${algorithm}`;
/** The algorithm as S3 spells it in messages and values: CRC32, CRC64NVME, SHA256… */
export const algorithmName = (algorithm: ChecksumAlgorithm) => algorithm.toUpperCase();
/** Its element in S3's XML documents (ChecksumCRC32…) and the SDK's result fields. */
export const checksumElement = (algorithm: ChecksumAlgorithm) => `Checksum${algorithm.toUpperCase()}`;

/** An algorithm as a request names it (`CRC32`, `crc32`), or null when it names none S3 knows. */
export function parseAlgorithm(value: string | null): ChecksumAlgorithm | null {
  const name = value?.trim().toLowerCase() ?? "";
  return isChecksumAlgorithm(name) ? name : null;
}

/**
 * The checksum a PUT or UploadPart asks the store to verify: its algorithm, and its value when sent
 * as a header. Sent as a trailer (`x-amz-trailer`, aws-chunked bodies) the value arrives after the
 * bytes.
 */
export type ChecksumRequest = { algorithm: ChecksumAlgorithm; expected: string | null; inTrailer: boolean };

/** A declared value: the base64 of exactly the algorithm's digest, else no value at all. */
export function validChecksumValue(algorithm: ChecksumAlgorithm, value: string): boolean {
  const raw = Buffer.from(value, "base64");
  return raw.length === DIGEST_BYTES[algorithm] && raw.toString("base64") === value;
}

const invalidValue = (name: string) => s3Errors.invalidRequest(`Value for ${name} header is invalid.`);

/**
 * Reads what a request declares: at most one `x-amz-checksum-*` header or trailer (S3 refuses more,
 * and values that are not a digest of their algorithm), consistent with `x-amz-sdk-checksum-algorithm`.
 */
export function checksumRequested(req: Request, payload: PayloadPolicy): ChecksumRequest | null {
  const declared: ChecksumRequest[] = [];
  for (const algorithm of CHECKSUM_ALGORITHMS) {
    const value = req.headers.get(checksumHeader(algorithm));
    if (value === null) continue;
    if (!validChecksumValue(algorithm, value.trim())) throw invalidValue(checksumHeader(algorithm));
    declared.push({ algorithm, expected: value.trim(), inTrailer: false });
  }
  const trailer = req.headers.get("x-amz-trailer");
  if (trailer !== null) {
    const algorithm = parseAlgorithm(trailer.trim().toLowerCase().replace(/^x-amz-checksum-/, ""));
    if (!algorithm || !trailer.trim().toLowerCase().startsWith("x-amz-checksum-")) throw s3Errors.invalidRequest("The value specified in the x-amz-trailer header is not supported");
    if (payload.kind !== "streaming" || !payload.trailer) throw s3Errors.invalidRequest("x-amz-trailer is only valid with an x-amz-content-sha256 of STREAMING-*-TRAILER.");
    declared.push({ algorithm, expected: null, inTrailer: true });
  }
  if (declared.length > 1) throw s3Errors.invalidRequest("Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.");
  const sdkAlgorithm = req.headers.get("x-amz-sdk-checksum-algorithm");
  if (sdkAlgorithm !== null) {
    const named = parseAlgorithm(sdkAlgorithm);
    if (!named) throw invalidValue("x-amz-sdk-checksum-algorithm");
    if (!declared.length) throw s3Errors.invalidRequest("x-amz-sdk-checksum-algorithm specified, but no corresponding x-amz-checksum-* or x-amz-trailer headers were found.");
    if (declared[0].algorithm !== named) throw invalidValue("x-amz-sdk-checksum-algorithm");
  }
  return declared[0] ?? null;
}

/** The answer to a value that does not match the bytes received. */
export const checksumMismatch = (algorithm: ChecksumAlgorithm) => new S3Error("BadDigest", `The ${algorithmName(algorithm)} you specified did not match the calculated checksum.`, 400);

/**
 * Checks the received bytes' checksum against the request's: from its header, or from the trailer
 * that followed the bytes. A trailer must carry what `x-amz-trailer` announced and nothing else.
 */
export function verifyChecksum(request: ChecksumRequest | null, computed: Buffer | null, trailers: Map<string, string> | null): void {
  const announced = request?.inTrailer ? checksumHeader(request.algorithm) : null;
  for (const name of trailers?.keys() ?? []) {
    if (name !== announced) throw new S3Error("MalformedTrailerError", `The trailer ${name} was not announced in x-amz-trailer.`, 400);
  }
  if (!request || !computed) return;
  let expected = request.expected;
  if (request.inTrailer) {
    expected = trailers?.get(checksumHeader(request.algorithm)) ?? null;
    if (expected === null) throw new S3Error("MalformedTrailerError", `The trailer ${checksumHeader(request.algorithm)} announced in x-amz-trailer is missing.`, 400);
    if (!validChecksumValue(request.algorithm, expected)) throw invalidValue(checksumHeader(request.algorithm));
  }
  if (expected !== computed.toString("base64")) throw checksumMismatch(request.algorithm);
}

/** `x-amz-checksum-<algorithm>` (and its type) for an answer that carries a checksum. */
export function checksumResponseHeaders(checksum: StoredChecksum | undefined, withType = true): Record<string, string> {
  if (!checksum) return {};
  const out: Record<string, string> = { [checksumHeader(checksum.algorithm)]: checksum.value };
  if (withType) out["x-amz-checksum-type"] = checksum.type;
  return out;
}

/** `ChecksumCRC32`… and `ChecksumType` elements for an XML result. */
export function checksumElements(checksum: StoredChecksum | undefined): Record<string, string> {
  if (!checksum) return {};
  return { [checksumElement(checksum.algorithm)]: checksum.value, ChecksumType: checksum.type };
}
