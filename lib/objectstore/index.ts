import { getDeps } from "../deps";
import { admitStoreBody } from "./admission/store-admission";
import { embeddedLayout } from "./embedded-layout";
import { handleGcsRequest } from "./gcs/handler";
import { embeddedGcsIdentity, embeddedS3Credentials } from "./identity";
import { GCS_MOUNT_PATH, S3_MOUNT_PATH } from "./mounts";
import { handleS3Request } from "./s3/handler";

export { embeddedLayout };

/** How a request reaches the store: `bodyAdmitted` when Easel's server has already given its body a slot (lib/server/direct-routes.ts). */
export type ServeOptions = { bodyAdmitted?: boolean };

/** Serves one request of the embedded store's S3 endpoint with the server's database and clock. */
export async function serveS3(req: Request, opts: ServeOptions = {}): Promise<Response> {
  const { db, clock } = await getDeps();
  return handleS3Request(req, { lay: embeddedLayout(), credentials: () => embeddedS3Credentials(db), clock, mountPath: S3_MOUNT_PATH, admitBody: opts.bodyAdmitted ? undefined : admitStoreBody });
}

/** Serves one request of the embedded store's GCS endpoint with the server's database and clock. */
export async function serveGcs(req: Request, opts: ServeOptions = {}): Promise<Response> {
  const { db, clock } = await getDeps();
  return handleGcsRequest(req, { lay: embeddedLayout(), identity: () => embeddedGcsIdentity(db), clock, mountPath: GCS_MOUNT_PATH, admitBody: opts.bodyAdmitted ? undefined : admitStoreBody });
}
