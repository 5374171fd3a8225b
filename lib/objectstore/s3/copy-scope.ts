import { s3Errors } from "./errors";

type ObjectName = { bucket: string; key: string };

/**
 * The workspace a key belongs to: Easel keeps every workspace's objects under `ws/<id>/`
 * (originals, thumbnails, streams). Keys outside that shape belong to no workspace.
 */
export function workspaceOfKey(key: string): string | null {
  return /^ws\/([^/]+)\//.exec(key)?.[1] ?? null;
}

/**
 * A server-side copy stays inside one workspace of one bucket, whoever signed it. Object keys are
 * not secret (they reach board-token holders as `primary_storage_id`), so a copy that could read
 * across workspaces would hand one tenant another's bytes; and Easel's own copies never leave a
 * workspace. Keys outside any workspace may be copied among themselves (an operator's own
 * objects), never into or out of one.
 */
export function refuseCrossWorkspaceCopy(source: ObjectName, destination: ObjectName): void {
  if (source.bucket !== destination.bucket) {
    throw s3Errors.accessDenied("A copy source must be in the destination's own bucket.");
  }
  if (workspaceOfKey(source.key) !== workspaceOfKey(destination.key)) {
    throw s3Errors.accessDenied("A copy source must be in the destination's own workspace.");
  }
}
