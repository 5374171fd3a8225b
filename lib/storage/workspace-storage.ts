import type { Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { jobMediaBaseUrl, mediaBaseUrl } from "../http/base-url";
import type { StorageDriver } from "./types";

/**
 * A workspace's storage. Every URL it hands out (presigned uploads, signed reads) is on the media
 * origin: EASEL_MEDIA_ORIGIN when set, else the origin of the request being answered, else (work
 * with no request: jobs) EASEL_PUBLIC_URL or the local port. Its own calls to the embedded store
 * do not use that origin: they are served in-process.
 */
export function workspaceStorage(deps: Deps, workspace: Pick<Workspace, "storageKind">, req?: Request): StorageDriver {
  return deps.storage(workspace.storageKind, req ? mediaBaseUrl(req) : jobMediaBaseUrl());
}
