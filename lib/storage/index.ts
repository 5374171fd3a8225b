import type { Clock } from "../clock";
import type { Db } from "../db";
import { embeddedLayout } from "../objectstore";
import { EMBEDDED_BUCKET } from "../objectstore/identity";
import { cloudObjects } from "./gcs/cloud-objects";
import { createGcsDriver } from "./gcs/driver";
import type { ObjectOps } from "./gcs/local-objects";
import { embeddedObjects } from "../server/cluster/embedded-objects";
import { embeddedGcsSigner, externalGcsSigner, type GcsSigner } from "./gcs/signer";
import { embeddedS3Settings, externalS3Settings, makeS3Client } from "./s3/config";
import { createS3Driver, ensureBucket, type S3Target } from "./s3/driver";
import type { StorageDriver } from "./types";

export type StorageContext = {
  /** Easel's public origin as the client sees it; embedded-store URLs are absolute on it. */
  baseUrl: string;
  db: Db;
  clock: Clock;
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
      once<S3Target>(ctx.db, `s3 ${ctx.baseUrl}`, async () => {
        const settings = externalS3Settings() ?? (await embeddedS3Settings(ctx.baseUrl, ctx.db));
        const client = makeS3Client(settings);
        if (settings.embedded) {
          client.config.systemClockOffset = ctx.clock().getTime() - Date.now();
          await ensureBucket(client, settings.bucket);
        }
        return { client, bucket: settings.bucket };
      });
    return createS3Driver(target, ctx.clock);
  }
  const signer = () => once<GcsSigner>(ctx.db, `gcs ${ctx.baseUrl}`, async () => externalGcsSigner() ?? (await embeddedGcsSigner(ctx.baseUrl, ctx.db)));
  let objects: ObjectOps | null = null;
  return createGcsDriver(async () => {
    const s = await signer();
    // The embedded store's files through the process that owns them (lib/server/cluster/embedded-objects.ts).
    objects ??= s.embedded ? embeddedObjects(embeddedLayout(), EMBEDDED_BUCKET, ctx.clock) : cloudObjects(s.storage.bucket(s.bucket));
    return { signer: s, objects };
  }, ctx.clock);
}
