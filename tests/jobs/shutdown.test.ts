import { eq, isNotNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../lib/db";
import { jobQueue, jobRuns } from "../../lib/db/schema/jobs";
import { bump, counters, testClient } from "./fixtures/client";
import { finishedRuns, jobsDb, startExecutor, waitFor } from "./helpers";

/**
 * A graceful stop (SIGTERM → lib/server/shutdown.ts → Executor.stop) while a step runs longer
 * than the grace period: the executor gives the call's lease back before the process exits, so
 * the run resumes on the next start (or on another node at once) instead of waiting for the
 * lease to run out; the abandoned call's late answer is dropped, and the run completes once.
 */
let release: (() => void) | null = null;
const longStep = testClient.createFunction({ id: "long-step", retries: 0, triggers: [{ event: "test/long" }] }, async ({ step }) => {
  const first = await step.run("slow", async () => {
    const attempt = bump("long.slow");
    // The first attempt outlives the grace period; the one after the restart returns at once.
    if (attempt === 1) await new Promise<void>((r) => (release = r));
    return { attempt };
  });
  return first;
});

let db: Db;

beforeAll(async () => {
  ({ db } = await jobsDb());
});

describe("executor stop with a step still running", () => {
  it("gives the lease back within the grace period, and the run resumes and completes once on the next start", async () => {
    counters.clear();
    const first = await startExecutor(db, { functions: [longStep], leaseMs: 60_000 });
    await testClient.send({ name: "test/long", data: {} });
    await waitFor(async () => counters.get("long.slow") === 1, 20_000, "the slow step to start");
    const leased = await db.select().from(jobQueue).where(isNotNull(jobQueue.leaseToken));
    expect(leased).toHaveLength(1);

    const stoppedAt = Date.now();
    await first.stop(300);
    expect(Date.now() - stoppedAt).toBeLessThan(5_000); // the grace period bounds the stop, not the step
    const [item] = await db.select().from(jobQueue).where(eq(jobQueue.id, leased[0].id));
    expect(item).toMatchObject({ leaseToken: null, leaseUntil: null });

    // The abandoned call answers late: its result must not settle the run.
    release?.();
    await new Promise((r) => setTimeout(r, 200));
    const [stillRunning] = await db.select().from(jobRuns).where(eq(jobRuns.id, leased[0].runId));
    expect(stillRunning.status).not.toBe("completed");

    // The next start (a lease of 60 s would otherwise hold the run for a minute) resumes it.
    await startExecutor(db, { functions: [longStep], leaseMs: 60_000 });
    const [run] = await finishedRuns(db, "jobs-test-long-step", 1, 10_000);
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ attempt: 2 });
    expect(counters.get("long.slow")).toBe(2);
  }, 60_000);
});
