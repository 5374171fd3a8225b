import { bucketAndKey, gcsBodyWriteKey, s3BodyWriteKey } from "./body-writes";
import { admitStoreBody } from "./store-admission";
import type { Admission } from "./upload-slots";
import { workspaceOfKey } from "./upload-slots";

/**
 * The admission of a body write as Easel's server sees the request, before any web Request is
 * built for it: a refusal then costs a URL parse and a map lookup, which keeps a flood of refused
 * bodies from taking the event loop from other tenants. Null for requests that write no body.
 */
export function admitDirectBody(protocol: "s3" | "gcs", mountPath: string, method: string, rawUrl: string, copy: boolean): Admission | null {
  if (method !== "PUT") return null;
  const url = new URL(rawUrl, "http://store.invalid");
  const { bucket, key } = bucketAndKey(url.pathname, mountPath);
  const urlKey = protocol === "s3" ? s3BodyWriteKey(method, bucket, key, url, copy) : gcsBodyWriteKey(method, bucket, key, url);
  return urlKey === null ? null : admitStoreBody(urlKey, workspaceOfKey(key));
}
