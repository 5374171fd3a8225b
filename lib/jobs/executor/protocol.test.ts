import { describe, expect, it } from "vitest";
import { callBody, interpretAnswer, sleepUntil, timeStringMs } from "./protocol";

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body: typeof body === "string" ? body : JSON.stringify(body) });

describe("interpretAnswer", () => {
  it("reads 206 ops, 200 output", () => {
    expect(interpretAnswer(answer(206, [{ id: "h", op: "StepRun", data: 1 }]), 0)).toEqual({ kind: "ops", ops: [{ id: "h", op: "StepRun", data: 1 }] });
    expect(interpretAnswer(answer(200, { ok: true }), 0)).toEqual({ kind: "completed", output: { ok: true } });
  });

  it("retries a 500 with no-retry false, fails a 400 or no-retry true", () => {
    const err = { name: "Error", message: "boom" };
    expect(interpretAnswer(answer(500, err, { "x-inngest-no-retry": "false" }), 0)).toMatchObject({ kind: "error", retriable: true, error: err });
    expect(interpretAnswer(answer(400, err, { "x-inngest-no-retry": "true" }), 0)).toMatchObject({ kind: "error", retriable: false });
    expect(interpretAnswer(answer(500, err, { "x-inngest-no-retry": "true" }), 0)).toMatchObject({ retriable: false });
    expect(interpretAnswer(answer(0, "connect ECONNREFUSED"), 0)).toMatchObject({ retriable: true, error: { message: "connect ECONNREFUSED" } });
  });

  it("honours Retry-After in seconds or as a date", () => {
    expect(interpretAnswer(answer(500, {}, { "retry-after": "30" }), 0)).toMatchObject({ retryAfterMs: 30_000 });
    expect(interpretAnswer(answer(500, {}, { "retry-after": "2030-01-01T00:01:00Z" }), Date.parse("2030-01-01T00:00:00Z"))).toMatchObject({ retryAfterMs: 60_000 });
  });
});

describe("sleeps", () => {
  it.each([
    ["2s", 2000],
    ["1h30m", 5_400_000],
    ["1.5m", 90_000],
    ["250ms", 250],
    ["1d", 86_400_000],
    ["soon", null],
    ["2s junk", null],
  ])("time string %s → %o ms", (s, ms) => expect(timeStringMs(s)).toBe(ms));

  it("takes the duration from `name` and a date for sleepUntil", () => {
    const now = new Date("2030-01-01T00:00:00Z");
    expect(sleepUntil({ id: "h", op: "Sleep", name: "10s" }, now).toISOString()).toBe("2030-01-01T00:00:10.000Z");
    expect(sleepUntil({ id: "h", op: "Sleep", name: "2030-02-01T00:00:00.000Z" }, now).toISOString()).toBe("2030-02-01T00:00:00.000Z");
  });
});

it("builds the call body with max_attempts and without fn_id", () => {
  const body = callBody({
    runId: "R",
    event: { name: "e", data: {} },
    steps: [{ stepId: "s1", result: { data: 1 } }],
    attempt: 2,
    maxAttempts: 4,
    disableImmediateExecution: true,
    requestVersion: 2,
  });
  expect(body.ctx).toEqual({ run_id: "R", attempt: 2, max_attempts: 4, disable_immediate_execution: true, use_api: false, stack: { stack: ["s1"], current: 1 } });
  expect(body.steps).toEqual({ s1: { data: 1 } });
  expect(body.version).toBe(2);
  expect("fn_id" in body.ctx).toBe(false);
});
