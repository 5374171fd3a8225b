import { CHECKSUM_ALGORITHMS } from "../disk/checksum-algorithms";
import type { UploadRecord } from "../disk/multipart";
import type { UploadChecksum } from "../disk/multipart-checksum";
import { algorithmName, checksumHeader, parseAlgorithm, validChecksumValue } from "./checksum-headers";
import { s3Errors } from "./errors";

const TYPES = ["COMPOSITE", "FULL_OBJECT"] as const;

/**
 * CreateMultipartUpload's `x-amz-checksum-algorithm` and `x-amz-checksum-type`, with S3's rules:
 * CRC64NVME makes full-object checksums only, SHA-1 and SHA-256 composite ones only, CRC32 and
 * CRC32C either. Without a type, CRC64NVME is FULL_OBJECT and the others COMPOSITE, as on S3.
 */
export function uploadChecksumFrom(req: Request): UploadChecksum | null {
  const algorithmHeader = req.headers.get("x-amz-checksum-algorithm");
  const typeHeader = req.headers.get("x-amz-checksum-type");
  if (algorithmHeader === null) {
    if (typeHeader !== null) throw s3Errors.invalidRequest("The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm header.");
    return null;
  }
  const algorithm = parseAlgorithm(algorithmHeader);
  if (!algorithm) throw s3Errors.invalidRequest("Checksum algorithm provided is unsupported. Please try again with any of the valid types: [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]");
  const type = typeHeader === null ? (algorithm === "crc64nvme" ? "FULL_OBJECT" : "COMPOSITE") : typeHeader.trim().toUpperCase();
  if (!(TYPES as readonly string[]).includes(type)) throw s3Errors.invalidRequest("Value for x-amz-checksum-type header is invalid.");
  const allowed = algorithm === "crc64nvme" ? type === "FULL_OBJECT" : algorithm.startsWith("sha") ? type === "COMPOSITE" : true;
  if (!allowed) throw s3Errors.invalidRequest(`The ${algorithmName(algorithm)} algorithm does not support the ${type} checksum type.`);
  return { algorithm, type: type as UploadChecksum["type"] };
}

/** Headers answering CreateMultipartUpload (and naming an upload's checksum elsewhere). */
export function uploadChecksumHeaders(checksum: UploadChecksum | null | undefined): Record<string, string> {
  return checksum ? { "x-amz-checksum-algorithm": algorithmName(checksum.algorithm), "x-amz-checksum-type": checksum.type } : {};
}

/**
 * The whole object's checksum a completion declares (`x-amz-checksum-<algorithm>`), checked once
 * the object's is known; its `x-amz-checksum-type`, if sent, must be the upload's.
 */
export function completionChecksumFrom(req: Request, upload: UploadRecord): string | null {
  const type = req.headers.get("x-amz-checksum-type");
  if (type !== null && type.trim().toUpperCase() !== (upload.checksum?.type ?? "")) {
    throw s3Errors.invalidRequest(`The upload was created using the ${upload.checksum?.type ?? "no"} checksum mode. The complete request must use the same checksum mode.`);
  }
  const declared = CHECKSUM_ALGORITHMS.filter((a) => req.headers.has(checksumHeader(a)));
  if (!declared.length) return null;
  if (declared.length > 1) throw s3Errors.invalidRequest("Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.");
  const [algorithm] = declared;
  const value = (req.headers.get(checksumHeader(algorithm)) ?? "").trim();
  if (upload.checksum && upload.checksum.algorithm !== algorithm) {
    throw s3Errors.invalidRequest(`The upload was created using a ${upload.checksum.algorithm} checksum. The complete request must use the same checksum algorithm.`);
  }
  // A composite value carries "-<parts>" after the digest.
  if (!validChecksumValue(algorithm, value.replace(/-\d+$/, ""))) throw s3Errors.invalidRequest(`Value for ${checksumHeader(algorithm)} header is invalid.`);
  return value;
}
