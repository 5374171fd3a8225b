import { asc, eq } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import type { Db } from "../../lib/db";
import { jobCalls, jobSteps } from "../../lib/db/schema/jobs";
import { EMBEDDED_BASE_URL, embeddedFetch } from "../../lib/jobs/executor";
import { checkpointItemId } from "../../lib/jobs/executor/checkpoint-id";
import { saveSyncedFunctions } from "../../lib/jobs/executor/store/functions";
import { ingestEvents } from "../../lib/jobs/executor/store/ingest";
import { claimBatch } from "../../lib/jobs/executor/store/queue";
import { bump, counters, testClient } from "./fixtures/client";
import { finishedRuns, jobsDb, startExecutor } from "./helpers";

let db: Db;
beforeAll(async () => {
  ({ db } = await jobsDb());
});

const stepsOf = (runId: string) => db.select().from(jobSteps).where(eq(jobSteps.runId, runId)).orderBy(asc(jobSteps.seq));

it("stores a checkpoint only under the lease its call holds (409 otherwise, nothing written)", async () => {
  const now = new Date();
  // A function no executor serves in this test: the item stays where this test puts it.
  await saveSyncedFunctions(db, [{ id: "manual", name: "manual", url: "http://127.0.0.1:1/api/inngest?fnId=manual&stepId=step", triggers: [{ event: "ck/manual" }], concurrency: [], maxAttempts: 1 }], now);
  const { runs } = await ingestEvents(db, [{ name: "ck/manual", data: {} }], now);
  const {
    claims: [claim],
  } = await claimBatch(db, now, 30_000, 1);
  expect(claim.item.runId).toBe(runs[0]);
  const post = (qiId: string, steps: unknown[]) =>
    embeddedFetch(async () => ({ db, clock: () => new Date() }))(`${EMBEDDED_BASE_URL}v1/checkpoint/${runs[0]}/async`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer x" },
      body: JSON.stringify({ run_id: runs[0], fn_id: "manual", qi_id: qiId, steps }),
    });

  const held = await post(checkpointItemId(claim.item), [{ op: "StepRun", id: "h1", name: "one", displayName: "one", data: { n: 1 } }]);
  expect(held.status).toBe(200);
  const stale = await post(checkpointItemId({ id: claim.item.id, leaseToken: "someone-else" }), [{ op: "StepRun", id: "h2", name: "two", data: 2 }]);
  expect(stale.status).toBe(409);
  const notAResult = await post(checkpointItemId(claim.item), [{ op: "Sleep", id: "h3", name: "1s" }]);
  expect(notAResult.status).toBe(400);
  // The same step again: the first result stays.
  expect((await post(checkpointItemId(claim.item), [{ op: "StepRun", id: "h1", name: "one", data: { n: 99 } }])).status).toBe(200);

  expect((await stepsOf(runs[0])).map((s) => ({ stepId: s.stepId, name: s.name, result: s.result, seq: s.seq }))).toEqual([{ stepId: "h1", name: "one", result: { data: { n: 1 } }, seq: 0 }]);
});

it("runs a function's steps in one call, each memoized by its checkpoint, in order", async () => {
  counters.clear();
  const fn = testClient.createFunction({ id: "ck-three", retries: 1, triggers: [{ event: "ck/three" }] }, async ({ step }) => {
    const a = await step.run("a", () => (bump("ck.a"), 1));
    const b = await step.run("b", () => (bump("ck.b"), a + 1));
    const c = await step.run("c", () => (bump("ck.c"), b + 1));
    return { a, b, c };
  });
  await startExecutor(db, { functions: [fn] });
  await testClient.send({ name: "ck/three", data: {} });
  const [run] = await finishedRuns(db, "jobs-test-ck-three");
  expect(run.status).toBe("completed");
  expect(run.output).toEqual({ a: 1, b: 2, c: 3 });
  expect(Object.fromEntries(counters)).toEqual({ "ck.a": 1, "ck.b": 1, "ck.c": 1 });
  expect((await stepsOf(run.id)).map((s) => [s.name, s.result])).toEqual([
    ["a", { data: 1 }],
    ["b", { data: 2 }],
    ["c", { data: 3 }],
  ]);
  const calls = await db.select().from(jobCalls).where(eq(jobCalls.runId, run.id));
  expect(calls.map((c) => ({ outcome: c.outcome, status: c.status }))).toEqual([{ outcome: "completed", status: 206 }]);
  expect(run.calls).toBe(1);
});
