import { parseRange } from "../../http/range";
import type { StoredChecksum } from "../disk/checksum-algorithms";
import type { ObjectRecord } from "../disk/objects";
import type { ReceivedBody } from "./body";
import { checksumResponseHeaders, parseAlgorithm } from "./checksum-headers";
import { s3Errors } from "./errors";

/** What a single PUT keeps: the checksum it was verified against (or computed for), of its whole bytes. */
export function keptChecksum(received: Pick<ReceivedBody, "checksum" | "checksumAlgorithm">): StoredChecksum | undefined {
  if (!received.checksum || !received.checksumAlgorithm) return undefined;
  return { algorithm: received.checksumAlgorithm, value: received.checksum.toString("base64"), type: "FULL_OBJECT" };
}

/**
 * A copy's checksum: the source's full-object one is kept as it is (the same bytes); one the copy
 * asks for (`x-amz-checksum-algorithm`), or a composite one (the copy is one piece, not parts), is
 * computed over the bytes as they are copied.
 */
export function copyChecksum(req: Request, source: ObjectRecord): { kept: StoredChecksum | null; compute: ReturnType<typeof parseAlgorithm> } {
  const header = req.headers.get("x-amz-checksum-algorithm");
  const asked = parseAlgorithm(header);
  if (header !== null && !asked) {
    throw s3Errors.invalidRequest("Checksum algorithm provided is unsupported. Please try again with any of the valid types: [CRC32, CRC32C, CRC64NVME, SHA1, SHA256]");
  }
  const existing = source.checksum;
  if (existing?.type === "FULL_OBJECT" && (!asked || asked === existing.algorithm)) return { kept: existing, compute: null };
  return { kept: null, compute: asked ?? existing?.algorithm ?? null };
}

/**
 * GET/HEAD with `x-amz-checksum-mode: ENABLED` answers the object's checksum, as S3 does, for the
 * whole object only: a range (or one part) is not what the checksum covers.
 */
export function servedChecksumHeaders(req: Request, url: URL, record: ObjectRecord): Record<string, string> {
  if (req.headers.get("x-amz-checksum-mode")?.toUpperCase() !== "ENABLED" || !record.checksum) return {};
  if (url.searchParams.has("partNumber") || parseRange(req.headers.get("range"), record.size) !== null) return {};
  return checksumResponseHeaders(record.checksum);
}
