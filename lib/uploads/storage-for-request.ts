import type { Deps } from "../deps";
import type { Workspace } from "../db/schema";
import { jobBaseUrl, mediaBaseUrl } from "../http/base-url";
import type { StorageDriver } from "../storage/types";

/**
 * The workspace's storage as this request's client reaches it: presigned URLs are absolute on the
 * media origin (EASEL_MEDIA_ORIGIN, else Easel's public origin). With the embedded store the
 * driver's own calls go to that origin too, which routes to this server like every media link.
 */
export function storageForRequest(req: Request, deps: Deps, workspace: Pick<Workspace, "storageKind">): StorageDriver {
  return deps.storage(workspace.storageKind, mediaBaseUrl(req));
}

/** The workspace's storage for background work, where no request gives an origin: EASEL_PUBLIC_URL or the local port. It hands no URL to clients. */
export function storageForJob(deps: Deps, workspace: Pick<Workspace, "storageKind">): StorageDriver {
  return deps.storage(workspace.storageKind, jobBaseUrl());
}
