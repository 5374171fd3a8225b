import path from "node:path";
import { getDeps } from "../deps";
import { env } from "../env";
import { layout, type Layout } from "./disk/layout";
import { handleGcsRequest } from "./gcs/handler";
import { embeddedGcsIdentity, embeddedS3Credentials } from "./identity";
import { GCS_MOUNT_PATH, S3_MOUNT_PATH } from "./mounts";
import { handleS3Request } from "./s3/handler";

/** The embedded store's files: `${EASEL_DATA_DIR}/objects`. */
export function embeddedLayout(dataDir = env().dataDir): Layout {
  return layout(path.join(dataDir, "objects"));
}

/** Serves one request of the embedded store's S3 endpoint with the server's database and clock. */
export async function serveS3(req: Request): Promise<Response> {
  const { db, clock } = await getDeps();
  return handleS3Request(req, { lay: embeddedLayout(), credentials: () => embeddedS3Credentials(db), clock, mountPath: S3_MOUNT_PATH });
}

/** Serves one request of the embedded store's GCS endpoint with the server's database and clock. */
export async function serveGcs(req: Request): Promise<Response> {
  const { db, clock } = await getDeps();
  return handleGcsRequest(req, { lay: embeddedLayout(), identity: () => embeddedGcsIdentity(db), clock, mountPath: GCS_MOUNT_PATH });
}
