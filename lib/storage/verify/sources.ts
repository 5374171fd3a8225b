import { systemClock } from "../../clock";
import type { Db } from "../../db";
import type { StorageKind } from "../../db/schema";
import { env } from "../../env";
import { DomainError } from "../../errors";
import { jobBaseUrl } from "../../http/base-url";
import type { Layout } from "../../objectstore/disk/layout";
import { inspectObject, NoSuchBucketError, openObject } from "../../objectstore/disk/objects";
import { embeddedLayout } from "../../objectstore/embedded-layout";
import { EMBEDDED_BUCKET } from "../../objectstore/identity";
import { storageFor } from "../index";
import { externalS3Settings } from "../s3/config";
import type { StorageDriver } from "../types";

/**
 * What a store says it holds at a key: nothing, files that are not what its record says
 * (embedded store only: a data file missing or at another size), or an object of `size` bytes
 * whose md5 it recorded (null when it keeps none that `storage verify` can use).
 */
export type Found = { state: "missing" } | { state: "damaged"; detail: string } | { state: "present"; size: number; md5: string | null };

/** A store as `storage verify` reads it: what it recorded for a key, and the key's bytes, streamed. */
export type ObjectSource = {
  /** `needMd5`: the database recorded no md5 for this file, so the store's own is wanted. */
  find(key: string, needMd5: boolean): Promise<Found>;
  /** The bytes, streamed; null when the object is gone. */
  open(key: string): Promise<AsyncIterable<Uint8Array> | null>;
};

const missing: Found = { state: "missing" };
const PLAIN_MD5 = /^[0-9a-f]{32}$/;

/**
 * The embedded store, read in this process with the functions its S3 and GCS endpoints serve
 * from (lib/objectstore/disk/objects.ts): the server's own read path, usable whether or not a
 * server runs (reading needs no lock). Unlike those endpoints it tells a missing data file from
 * one at the wrong size, and it never creates the bucket.
 */
export function embeddedSource(lay: Layout = embeddedLayout(), bucket = EMBEDDED_BUCKET): ObjectSource {
  return {
    async find(key) {
      let state;
      try {
        state = await inspectObject(lay, bucket, key);
      } catch (err) {
        if (err instanceof NoSuchBucketError) return missing;
        throw err;
      }
      if (!state || state.damage?.found === null) return missing;
      if (state.damage) return { state: "damaged", detail: `data file ${state.damage.file} holds ${state.damage.found} bytes, its record says ${state.damage.recorded}` };
      return { state: "present", size: state.record.size, md5: state.record.md5 };
    },
    async open(key) {
      try {
        return (await openObject(lay, bucket, key))?.stream ?? null;
      } catch (err) {
        if (err instanceof NoSuchBucketError) return null;
        throw err;
      }
    },
  };
}

const isNotFound = (err: unknown) => err instanceof DomainError && err.code === "storage_object_not_found";

/**
 * A real bucket through the workspace kind's storage driver, the server's own code. What the
 * store recorded: the size from head; the md5 is S3's ETag when it is a plain md5 (objects stored
 * by one PUT; a multipart ETag "…-N" is not), GCS's md5Hash (through the driver's md5).
 */
export function driverSource(driver: StorageDriver): ObjectSource {
  return {
    async find(key, needMd5) {
      const info = await driver.head(key);
      if (!info) return missing;
      let md5: string | null = null;
      if (driver.kind === "s3") md5 = PLAIN_MD5.test(info.etag) ? info.etag : null;
      else if (needMd5) {
        try {
          md5 = await driver.md5(key);
        } catch (err) {
          if (isNotFound(err)) return missing;
          throw err;
        }
      }
      return { state: "present", size: info.size, md5 };
    },
    async open(key) {
      try {
        return (await driver.read(key)) as unknown as AsyncIterable<Uint8Array>;
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },
  };
}

/** Whether a workspace kind's objects are in a real bucket (EASEL_S3_BUCKET, EASEL_GCS_BUCKET) rather than the embedded store. */
export function usesBucket(kind: StorageKind): boolean {
  return kind === "s3" ? externalS3Settings() !== null : Boolean(env().EASEL_GCS_BUCKET);
}

/** The source for a workspace kind's objects, as the server's configuration places them. */
export function sourceFor(kind: StorageKind, db: Db): ObjectSource {
  if (!usesBucket(kind)) return embeddedSource();
  return driverSource(storageFor(kind, { baseUrl: jobBaseUrl(), db, clock: systemClock }));
}
