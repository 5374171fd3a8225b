import type { Deps } from "../deps";
import type { Workspace } from "../db/schema";
import { env } from "../env";
import { publicBaseUrl } from "../http/base-url";
import type { StorageDriver } from "../storage/types";

/** The workspace's storage as this request's client reaches it (presigned URLs are absolute on its origin). */
export function storageForRequest(req: Request, deps: Deps, workspace: Pick<Workspace, "storageKind">): StorageDriver {
  return deps.storage(workspace.storageKind, publicBaseUrl(req));
}

/** The workspace's storage for background work, where no request gives an origin: EASEL_PUBLIC_URL or the local port. */
export function storageForJob(deps: Deps, workspace: Pick<Workspace, "storageKind">): StorageDriver {
  const baseUrl = env().EASEL_PUBLIC_URL?.replace(/\/+$/, "") ?? `http://127.0.0.1:${env().PORT ?? "3000"}`;
  return deps.storage(workspace.storageKind, baseUrl);
}
