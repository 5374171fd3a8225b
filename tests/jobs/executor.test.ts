import { eq } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../lib/db";
import { jobCalls } from "../../lib/db/schema/jobs";
import { getRun } from "../../lib/jobs/runs";
import { counters, testClient } from "./fixtures/client";
import { finishedRuns, jobsDb, runsOf, startExecutor } from "./helpers";

let db: Db;

beforeAll(async () => {
  ({ db } = await jobsDb());
  await startExecutor(db);
});
beforeEach(() => counters.clear());

describe("embedded executor", () => {
  it("memoizes steps: a step that failed once runs twice, the others once", async () => {
    await testClient.send({ name: "test/three", data: {} });
    const [run] = await finishedRuns(db, "jobs-test-three-steps");
    expect(run.status).toBe("completed");
    expect(run.output).toEqual({ a: 1, b: 2, c: 3 });
    expect(Object.fromEntries(counters)).toEqual({ "three.a": 1, "three.b": 2, "three.c": 1 });
    expect(run.lastError?.message).toBe("first attempt fails");
    const calls = await db.select().from(jobCalls).where(eq(jobCalls.runId, run.id));
    expect(calls.map((c) => c.outcome)).toContain("retry");
  });

  it("fails a run whose retries are exhausted, with its error, and runs onFailure", async () => {
    await testClient.send({ name: "test/fail", data: {} });
    const [run] = await finishedRuns(db, "jobs-test-always-fails");
    expect(run.status).toBe("failed");
    expect(run.error).toMatchObject({ name: "Error", message: "doomed every time" });
    expect(counters.get("fail.doomed")).toBe(2); // retries: 1 → two attempts
    const [failure] = await finishedRuns(db, "jobs-test-always-fails-failure");
    expect(failure.status).toBe("completed");
    expect(failure.output).toEqual({ message: "doomed every time", original: "test/fail" });
    expect(counters.get("fail.onFailure")).toBe(1);
  });

  it("does not retry a NonRetriableError", async () => {
    await testClient.send({ name: "test/non-retriable", data: {} });
    const [run] = await finishedRuns(db, "jobs-test-non-retriable");
    expect(run.status).toBe("failed");
    expect(run.error).toMatchObject({ name: "NonRetriableError", message: "bad payload" });
    expect(counters.get("nonretriable.refuse")).toBe(1);
  });

  it("sleeps, runs parallel steps and sends events from a step", async () => {
    await testClient.send({ name: "test/flow", data: { label: "L1" } });
    const [run] = await finishedRuns(db, "jobs-test-sleep-parallel-send");
    expect(run.status).toBe("completed");
    const output = run.output as { slept: number; x: string; y: string };
    expect(output.slept).toBeGreaterThanOrEqual(1000);
    expect([output.x, output.y]).toEqual(["x", "y"]);
    const [announced] = await finishedRuns(db, "jobs-test-after-send");
    expect(announced.output).toBe("L1");
    expect(Object.fromEntries(counters)).toEqual({ "flow.first": 1, "flow.woke": 1, "flow.left": 1, "flow.right": 1, announced: 1 });
    const detail = await getRun(db, run.id);
    expect(detail?.steps.map((s) => s.name)).toEqual(expect.arrayContaining(["first", "nap", "woke", "left", "right", "announce"]));
  });

  it("starts a run per event and dedupes events by their id", async () => {
    await testClient.send([
      { name: "test/noop", data: {}, id: "same-id" },
      { name: "test/noop", data: {}, id: "same-id" },
      { name: "test/noop", data: {} },
    ]);
    const runs = await finishedRuns(db, "jobs-test-noop", 2);
    expect(runs).toHaveLength(2);
    expect((await runsOf(db, "jobs-test-noop")).every((r) => r.status === "completed")).toBe(true);
  });
});
