import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import type { InngestFunction } from "inngest";
import { serve } from "inngest/next";
import postgres from "postgres";
import { afterAll, inject } from "vitest";
import type { Clock } from "../../lib/clock";
import type { Db } from "../../lib/db";
import { migratePostgresDb } from "../../lib/db/migrate";
import * as schema from "../../lib/db/schema";
import { jobRuns, type JobRun } from "../../lib/db/schema/jobs";
import { Executor, inProcessTransport, signingKeyFromSecret, type ExecutorOptions } from "../../lib/jobs/executor";
import { testDb } from "../helpers/db";
import { sendEventsTo, testClient } from "./fixtures/client";
import { fixtureFunctions } from "./fixtures/functions";

/**
 * Cleanups run after the file's tests, last registered first (executors stop before their
 * database closes). Registered here, at import, because hooks added from inside a beforeAll
 * would not run.
 */
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A database of this file's own. On PGlite every file has one anyway; on Postgres the files share
 * one database, and two executors on it would run each other's runs, so jobs tests get a scratch
 * database each.
 */
export async function jobsDb(): Promise<{ db: Db; kind: "pglite" | "postgres"; url?: string }> {
  const target = inject("testDatabase");
  if (target.kind === "pglite") return testDb();
  const name = `easel_jobs_${crypto.randomBytes(4).toString("hex")}`;
  const admin = postgres(target.url, { onnotice: () => undefined, max: 1 });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(target.url);
  url.pathname = `/${name}`;
  const client = postgres(url.href, { onnotice: () => undefined, max: 10 });
  const db = drizzle(client, { schema });
  await migratePostgresDb(db as never);
  cleanups.push(async () => {
    await client.end({ timeout: 5 });
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  });
  return { db: db as unknown as Db, kind: "postgres", url: url.href };
}

export const SERVE_URL = "http://127.0.0.1:3999/api/inngest";
export const TEST_SIGNING_KEY = signingKeyFromSecret("jobs-tests");

/** The fixture functions served in-process, driven by an executor on `db`. */
export async function startExecutor(db: Db, opts: Partial<ExecutorOptions> & { clock?: Clock; functions?: InngestFunction.Any[] } = {}) {
  const { functions = fixtureFunctions, ...options } = opts;
  const clock = opts.clock ?? (() => new Date());
  sendEventsTo(db, clock);
  testClient.setEnvVars({ INNGEST_SIGNING_KEY: TEST_SIGNING_KEY });
  const handlers = serve({ client: testClient, functions, enableUnauthedSync: false });
  const quiet = { info: () => undefined, warn: (m: string) => console.warn(m), error: (m: string) => console.error(m) };
  const executor = new Executor({
    db,
    clock,
    signingKey: TEST_SIGNING_KEY,
    serveUrl: SERVE_URL,
    transport: inProcessTransport(handlers),
    pollMs: 100,
    leaseMs: 5_000,
    backoffMs: () => 50,
    log: quiet,
    ...options,
  });
  await executor.sync();
  executor.start();
  cleanups.push(() => executor.stop());
  return executor;
}

export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = 20_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function runsOf(db: Db, functionId: string): Promise<JobRun[]> {
  return db.select().from(jobRuns).where(eq(jobRuns.functionId, functionId));
}

/** Waits until every run of the function has ended and there are `count` of them. */
export async function finishedRuns(db: Db, functionId: string, count = 1, timeoutMs?: number): Promise<JobRun[]> {
  return waitFor(
    async () => {
      const runs = await runsOf(db, functionId);
      return runs.length >= count && runs.every((r) => r.status === "completed" || r.status === "failed") ? runs : null;
    },
    timeoutMs,
    `${count} finished run(s) of ${functionId}`,
  );
}
