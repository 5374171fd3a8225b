import type { Clock } from "../clock";
import type { Db } from "../db";
import type { Layout } from "../objectstore/disk/layout";
import { embeddedLayout } from "../objectstore/embedded-layout";
import { EMBEDDED_BUCKET, embeddedS3Credentials } from "../objectstore/identity";
import { S3_MOUNT_PATH } from "../objectstore/mounts";
import { handleS3Request } from "../objectstore/s3/handler";
import { embeddedObjects } from "../server/cluster/embedded-objects";
import { servedByStoreOwner } from "../server/cluster/store-requests";
import { cloudObjects } from "./gcs/cloud-objects";
import { createGcsDriver } from "./gcs/driver";
import type { ObjectOps } from "./gcs/local-objects";
import { embeddedGcsSigner, externalGcsSigner, type GcsSigner } from "./gcs/signer";
import { embeddedS3Settings, externalS3Settings, makeS3Client } from "./s3/config";
import { createS3Driver, ensureBucket, type S3Target } from "./s3/driver";
import { inProcessRequestHandler } from "./s3/in-process-handler";
import type { StorageDriver } from "./types";

export type StorageContext = {
  /** Easel's public origin as the client sees it; embedded-store URLs are absolute on it. */
  baseUrl: string;
  db: Db;
  clock: Clock;
  /** The embedded store's files; `EASEL_DATA_DIR/objects` unless a test names its own. */
  embeddedLayout?: Layout;
};

/**
 * Clients and signers are built once per database and origin (their keys live in the database)
 * and shared by every driver handed out; a failed setup is retried on the next call.
 */
const setups = new WeakMap<Db, Map<string, Promise<unknown>>>();

function once<T>(db: Db, id: string, make: () => Promise<T>): Promise<T> {
  let byId = setups.get(db);
  if (!byId) setups.set(db, (byId = new Map()));
  let promise = byId.get(id) as Promise<T> | undefined;
  if (!promise) {
    promise = make().catch((err) => {
      byId.delete(id);
      throw err;
    });
    byId.set(id, promise);
  }
  return promise;
}

/**
 * The storage driver of a workspace's storage kind: s3 (Kind B) or gcs (Kind A). Each points at
 * the embedded store on `baseUrl` unless the environment names an external bucket
 * (EASEL_S3_BUCKET, EASEL_GCS_BUCKET; docs/storage.md).
 */
export function storageFor(kind: "s3" | "gcs", ctx: StorageContext): StorageDriver {
  if (kind === "s3") {
    const target = () =>
      once<S3Target>(ctx.db, `s3 ${ctx.baseUrl} ${layoutOf(ctx).root}`, async () => {
        const settings = externalS3Settings() ?? (await embeddedS3Settings(ctx.baseUrl, ctx.db));
        // The embedded store answers in this process: its endpoint on the origin is only what
        // presigned URLs name, for clients.
        const client = makeS3Client(settings, settings.embedded ? embeddedStoreHandler(ctx) : undefined);
        if (settings.embedded) {
          client.config.systemClockOffset = ctx.clock().getTime() - Date.now();
          await ensureBucket(client, settings.bucket);
        }
        return { client, bucket: settings.bucket, sealsUploads: settings.embedded };
      });
    return createS3Driver(target, ctx.clock);
  }
  const signer = () => once<GcsSigner>(ctx.db, `gcs ${ctx.baseUrl}`, async () => externalGcsSigner() ?? (await embeddedGcsSigner(ctx.baseUrl, ctx.db)));
  let objects: ObjectOps | null = null;
  return createGcsDriver(async () => {
    const s = await signer();
    // The embedded store's files through the process that owns them (lib/server/cluster/embedded-objects.ts).
    objects ??= s.embedded ? embeddedObjects(layoutOf(ctx), EMBEDDED_BUCKET, ctx.clock) : cloudObjects(s.storage.bucket(s.bucket));
    return { signer: s, objects };
  }, ctx.clock);
}

/** The embedded store's S3 handler, called directly with the same context its HTTP route gives it. */
function embeddedStoreHandler(ctx: StorageContext) {
  // Under EASEL_WORKERS only the store's owner serves it; another worker's requests go to the owner.
  return inProcessRequestHandler(servedByStoreOwner((req) => handleS3Request(req, { lay: layoutOf(ctx), credentials: () => embeddedS3Credentials(ctx.db), clock: ctx.clock, mountPath: S3_MOUNT_PATH })));
}

const layoutOf = (ctx: StorageContext) => ctx.embeddedLayout ?? embeddedLayout();
