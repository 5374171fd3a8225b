import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { testClient } from "../jobs/fixtures/client";
import { finishedRuns, startExecutor } from "../jobs/helpers";
import { openBehindProxy, type ProxiedDb } from "./tcp-proxy";

/**
 * The embedded job executor when PostgreSQL goes away and comes back, without a restart of the
 * process: it talks to a database made for this file through a TCP proxy the test cuts (every
 * connection destroyed, new ones refused for 3 s). A run in the middle of a step when the cut
 * comes, and a run sent after the database is back, must both complete. Skipped on PGlite (no
 * server to lose).
 */
const target = inject("testDatabase");
const onPostgres = target.kind === "postgres";

const slowStep = testClient.createFunction({ id: "outage-slow-step", retries: 3, triggers: [{ event: "test/outage-slow" }] }, async ({ step }) => {
  const waited = await step.run("wait", async () => {
    await new Promise((r) => setTimeout(r, 1500));
    return "waited";
  });
  return step.run("after", () => `${waited}, then done`);
});

const quick = testClient.createFunction({ id: "outage-quick", retries: 3, triggers: [{ event: "test/outage-quick" }] }, async ({ step }) => step.run("only", () => "done"));

let db: ProxiedDb;

beforeAll(async () => {
  if (!onPostgres) return;
  db = await openBehindProxy(target.url, "jobcut");
  await startExecutor(db.handle.db, { functions: [slowStep, quick], leaseMs: 3_000 });
});

// The executor stops in the jobs helpers' own afterAll, registered before this one: it runs after.
afterAll(async () => {
  if (onPostgres) await db?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!onPostgres)("the job executor when PostgreSQL is lost and comes back", () => {
  it("a run cut mid-step and a run sent after the outage both complete, with the same process and pool", async () => {
    await testClient.send({ name: "test/outage-quick", data: {} });
    expect((await finishedRuns(db.handle.db, "jobs-test-outage-quick", 1))[0].status).toBe("completed");

    await testClient.send({ name: "test/outage-slow", data: {} });
    await sleep(600); // inside the 1.5 s step
    await db.proxy.cut();
    await sleep(3000);
    await db.proxy.accept();
    const cutAt = Date.now();

    await testClient.send({ name: "test/outage-quick", data: {} });
    const quickRuns = await finishedRuns(db.handle.db, "jobs-test-outage-quick", 2, 30_000);
    const [slowRun] = await finishedRuns(db.handle.db, "jobs-test-outage-slow-step", 1, 30_000);
    expect(quickRuns.map((r) => r.status)).toEqual(["completed", "completed"]);
    expect(slowRun.status).toBe("completed");
    expect(slowRun.output).toBe("waited, then done");
    console.log(`[faults] job executor: PostgreSQL cut for 3 s with a run mid-step; both runs completed ${((Date.now() - cutAt) / 1000).toFixed(1)} s after it was reachable again`);
  }, 60_000);
});
