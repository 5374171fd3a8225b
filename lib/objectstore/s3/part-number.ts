import { MAX_PART_NUMBER } from "../disk/multipart";
import type { ObjectRecord } from "../disk/objects";
import { S3Error, s3Errors } from "./errors";

/** How many parts an object was uploaded in: the "-N" of a multipart ETag, else one. */
export function partsCount(record: ObjectRecord): number {
  const m = /-(\d+)$/.exec(record.etag);
  return m ? Number(m[1]) : 1;
}

/**
 * GET/HEAD `?partNumber=N`: the byte range of the object's Nth part as it was uploaded (a multipart
 * object keeps one segment per part). An object uploaded whole is one part. S3 refuses a part
 * number together with a Range header, and a part the object does not have (416).
 */
export function partRange(req: Request, raw: string, record: ObjectRecord): { start: number; end: number } {
  const n = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_PART_NUMBER) {
    throw s3Errors.invalidArgument(`Part number must be an integer between 1 and ${MAX_PART_NUMBER}, inclusive`);
  }
  if (req.headers.has("range")) throw s3Errors.invalidRequest("Cannot specify both Range header and partNumber query parameter");
  const count = partsCount(record);
  const sizes = count > 1 && record.segments.length === count ? record.segments.map((s) => s.size) : [record.size];
  if (n > sizes.length || record.size === 0) {
    throw new S3Error("InvalidPartNumber", "The requested partnumber is not satisfiable", 416, { PartNumberRequested: String(n), ActualPartCount: String(sizes.length) });
  }
  const start = sizes.slice(0, n - 1).reduce((sum, size) => sum + size, 0);
  return { start, end: start + sizes[n - 1] - 1 };
}
