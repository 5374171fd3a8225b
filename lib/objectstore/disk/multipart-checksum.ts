import { checksumOf, type ChecksumAlgorithm, type StoredChecksum } from "./checksum-algorithms";
import type { PartRecord } from "./multipart";
import { MultipartError } from "./multipart-error";

/** The checksum a multipart upload was created with: its algorithm and how the object's is made. */
export type UploadChecksum = { algorithm: ChecksumAlgorithm; type: "FULL_OBJECT" | "COMPOSITE" };

/**
 * The completed object's checksum. COMPOSITE: the algorithm over the parts' raw checksums in
 * order, suffixed "-<parts>" (S3's form; clients know such a value covers no bytes directly).
 * FULL_OBJECT: the CRC of the whole object, `whole`, computed while the parts' md5 was.
 * `expected` (the completion's x-amz-checksum-<algorithm>) must match, else nothing is committed.
 */
export async function objectChecksumOrThrow(
  upload: UploadChecksum | undefined,
  parts: PartRecord[],
  whole: Buffer | null,
  expected: string | null,
): Promise<StoredChecksum | undefined> {
  if (!upload) {
    if (expected !== null) throw new MultipartError("InvalidRequest", "The upload was created without a checksum algorithm: its completion cannot be checked against one.");
    return undefined;
  }
  let value: string;
  if (upload.type === "FULL_OBJECT") {
    if (!whole) return undefined;
    value = whole.toString("base64");
  } else {
    // Every part of an upload with an algorithm has its checksum (commitPart names it).
    if (parts.some((p) => p.checksum === undefined)) return undefined;
    const raw = Buffer.concat(parts.map((p) => Buffer.from(p.checksum as string, "base64")));
    value = `${(await checksumOf(upload.algorithm, raw)).toString("base64")}-${parts.length}`;
  }
  if (expected !== null && expected !== value && `${expected}-${parts.length}` !== value) {
    throw new MultipartError("BadDigest", `The ${upload.algorithm.toUpperCase()} you specified did not match the calculated checksum.`);
  }
  return { algorithm: upload.algorithm, value, type: upload.type };
}
