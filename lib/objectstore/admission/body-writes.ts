import { safeDecode } from "../canonical";
import { SUBRESOURCES } from "../s3/subresources";

/**
 * Which requests write a body to a temporary file, and the upload URL each one counts against:
 * one definition for the store's handlers and for Easel's server, which admits a body before it
 * builds a web Request for it (lib/server/direct-routes.ts).
 */


/** The URL key of an S3 PutObject or UploadPart (not their copy forms), or null for any other request. */
export function s3BodyWriteKey(method: string, bucket: string, key: string, url: URL, copy: boolean): string | null {
  if (method !== "PUT" || !key || copy) return null;
  const q = url.searchParams;
  const sub = [...q.keys()].filter((k) => SUBRESOURCES.has(k)).sort().join("&");
  if (sub !== "" && sub !== "partNumber&uploadId") return null;
  const part = q.has("uploadId") ? `?uploadId=${q.get("uploadId")}&partNumber=${q.get("partNumber")}` : "";
  return `s3:${bucket}/${key}${part}`;
}

/** The URL key of a GCS body write: a chunk to a resumable session, or a signed PUT; null otherwise. */
export function gcsBodyWriteKey(method: string, bucket: string, key: string, url: URL): string | null {
  if (method !== "PUT" || !key) return null;
  const session = url.searchParams.get("upload_id");
  return session !== null ? `gcs-session:${session}` : `gcs:${bucket}/${key}`;
}

/** `/mount/bucket/some/key` → bucket and key (decoded), as the handlers read them. */
export function bucketAndKey(pathname: string, mountPath: string): { bucket: string; key: string } {
  const rest = (pathname.startsWith(mountPath) ? pathname.slice(mountPath.length) : pathname).replace(/^\//, "");
  const slash = rest.indexOf("/");
  if (slash < 0) return { bucket: safeDecode(rest), key: "" };
  return { bucket: safeDecode(rest.slice(0, slash)), key: safeDecode(rest.slice(slash + 1)) };
}
