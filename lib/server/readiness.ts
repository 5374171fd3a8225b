import fs from "node:fs/promises";
import { HeadBucketCommand } from "@aws-sdk/client-s3";
import { sql } from "drizzle-orm";
import { getDeps } from "../deps";
import { embeddedLayout } from "../objectstore";
import { externalGcsSigner } from "../storage/gcs/signer";
import { externalS3Settings, makeS3Client } from "../storage/s3/config";
import { jobsReadiness } from "../jobs/readiness";

export type CheckName = "database" | "storage" | "jobs";
export type CheckResult = Record<CheckName, "ok" | "unavailable">;

/** Each check must answer within this long, or it counts as unavailable (contract §10). */
export const CHECK_TIMEOUT_MS = 2_000;

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

async function database() {
  const { db } = await getDeps();
  await db.execute(sql`select 1`);
}

/**
 * The object storage this node writes to: every external bucket that is configured answers a
 * HEAD of itself; without one, the embedded store's folder is writable.
 */
async function storage() {
  const s3 = externalS3Settings();
  const gcs = externalGcsSigner();
  if (s3) await makeS3Client(s3).send(new HeadBucketCommand({ Bucket: s3.bucket }));
  if (gcs) {
    const [exists] = await gcs.storage.bucket(gcs.bucket).exists();
    if (!exists) throw new Error(`the bucket ${gcs.bucket} does not exist`);
  }
  if (!s3 || !gcs) {
    // The store makes its folder on its first write; a new install is ready before that.
    const root = embeddedLayout().root;
    await fs.mkdir(root, { recursive: true, mode: 0o700 });
    await fs.access(root, fs.constants.W_OK);
  }
}

const CHECKS: Record<CheckName, () => Promise<unknown>> = { database, storage, jobs: jobsReadiness };

/**
 * `/readyz`: every dependency answers within 2 s. A failing check is logged with its reason (the
 * response says only "unavailable": it is unauthenticated).
 */
export async function readiness(): Promise<CheckResult> {
  const entries = await Promise.all(
    (Object.keys(CHECKS) as CheckName[]).map(async (name) => {
      try {
        await within(CHECK_TIMEOUT_MS, CHECKS[name]());
        return [name, "ok"] as const;
      } catch (err) {
        console.warn(`[easel] readiness: ${name} unavailable: ${(err as Error).message}`);
        return [name, "unavailable"] as const;
      }
    }),
  );
  return Object.fromEntries(entries) as CheckResult;
}

const KEY = Symbol.for("easel.readiness");

/** Hands the checks to Easel's HTTP server (plain Node.js, which cannot import this bundled code). */
export function publishReadiness() {
  (globalThis as { [KEY]?: () => Promise<CheckResult> })[KEY] = readiness;
}

export function unpublishReadiness() {
  delete (globalThis as { [KEY]?: unknown })[KEY];
}
