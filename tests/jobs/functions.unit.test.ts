import { InngestTestEngine } from "@inngest/test";
import { beforeEach, describe, expect, it } from "vitest";
import { pruneJobRuns } from "../../lib/jobs/prune-runs.job";
import { counters } from "./fixtures/client";
import { alwaysFails, sleepParallelSend, threeSteps } from "./fixtures/functions";

// The functions' logic alone, steps mocked where they reach out (@inngest/test: no executor, no retries, no timers).
beforeEach(() => counters.clear());

describe("three-steps", () => {
  const t = new InngestTestEngine({ function: threeSteps, events: [{ name: "test/three", data: {} }] });

  it("chains the step results", async () => {
    const { result } = await t.execute({ steps: [{ id: "b", handler: () => 2 }] });
    expect(result).toEqual({ a: 1, b: 2, c: 3 });
  });

  it("stops at the second step's first failure", async () => {
    const { error } = await t.execute();
    expect((error as Error).message).toBe("first attempt fails");
    expect(Object.fromEntries(counters)).toEqual({ "three.a": 1, "three.b": 1 });
  });
});

it("always-fails throws from its step", async () => {
  const t = new InngestTestEngine({ function: alwaysFails, events: [{ name: "test/fail", data: {} }] });
  const { error } = await t.execute();
  expect((error as Error).message).toBe("doomed every time");
});

it("sleep-parallel-send sleeps, runs both branches and announces its label", async () => {
  const t = new InngestTestEngine({ function: sleepParallelSend, events: [{ name: "test/flow", data: { label: "L9" } }] });
  // @inngest/test has no timers: a sleep that is not mocked never ends.
  const steps = [
    { id: "nap", handler: () => null },
    { id: "announce", handler: () => ({ ids: ["e1"] }) },
  ];
  const { result, ctx } = await t.execute({ steps });
  expect(result).toMatchObject({ x: "x", y: "y" });
  expect(ctx.step.sleep).toHaveBeenCalledWith("nap", "1s");
  expect(ctx.step.sendEvent).toHaveBeenCalledWith("announce", { name: "test/announced", data: { from: "L9" } });
});

it("jobs-prune-runs returns what pruning removed", async () => {
  const t = new InngestTestEngine({ function: pruneJobRuns });
  const { result } = await t.execute({ steps: [{ id: "prune", handler: () => ({ runs: 3, events: 2 }) }] });
  expect(result).toEqual({ runs: 3, events: 2 });
});
