import fs from "node:fs/promises";
import { HeadBucketCommand } from "@aws-sdk/client-s3";
import { sql } from "drizzle-orm";
import { getDeps } from "../deps";
import { jobsReadiness } from "../jobs/readiness";
import { log } from "../log/logger.mjs";
import { embeddedLayout } from "../objectstore";
import { externalGcsSigner } from "../storage/gcs/signer";
import { externalS3Settings, makeS3Client } from "../storage/s3/config";

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

/** A failing check is logged at most once per this long; the lines in between are counted. */
export const WARN_EVERY_MS = 30_000;

type Outage = { loggedAt: number; suppressed: number; failures: number };

/**
 * What the log says about each check: an orchestrator probes every few seconds, and one line per
 * probe per failing check would bury everything else during an outage. The first failure is
 * logged, then at most one line per check every WARN_EVERY_MS with the count of failures not
 * logged since, and the recovery once.
 */
export class ReadinessLog {
  private outages = new Map<CheckName, Outage>();

  constructor(private readonly everyMs = WARN_EVERY_MS) {}

  failed(name: CheckName, err: unknown, now = Date.now()): void {
    const outage = this.outages.get(name);
    if (outage && now - outage.loggedAt < this.everyMs) {
      outage.suppressed++;
      outage.failures++;
      return;
    }
    const failures = (outage?.failures ?? 0) + 1;
    log().warn({ component: "readiness", check: name, failures, suppressed: outage?.suppressed ?? 0, err }, "readiness check unavailable");
    this.outages.set(name, { loggedAt: now, suppressed: 0, failures });
  }

  passed(name: CheckName): void {
    const outage = this.outages.get(name);
    if (!outage) return;
    this.outages.delete(name);
    log().info({ component: "readiness", check: name, failures: outage.failures }, "readiness check ok again");
  }
}

const STATE = Symbol.for("easel.readinessLog");
const readinessLog: ReadinessLog = ((globalThis as { [STATE]?: ReadinessLog })[STATE] ??= new ReadinessLog());

/**
 * `/readyz`: every dependency answers within 2 s. A failing check is logged with its reason (the
 * response says only "unavailable": it is unauthenticated), rate-limited (ReadinessLog).
 */
export async function readiness(): Promise<CheckResult> {
  const entries = await Promise.all(
    (Object.keys(CHECKS) as CheckName[]).map(async (name) => {
      try {
        await within(CHECK_TIMEOUT_MS, CHECKS[name]());
        readinessLog.passed(name);
        return [name, "ok"] as const;
      } catch (err) {
        readinessLog.failed(name, err);
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
