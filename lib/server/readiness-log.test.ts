import { afterEach, beforeEach, expect, it } from "vitest";
import { captureLogs } from "../log/capture";
import { ReadinessLog, WARN_EVERY_MS } from "./readiness";

let logs: ReturnType<typeof captureLogs>;
beforeEach(() => {
  logs = captureLogs();
});
afterEach(() => logs.restore());

const summary = () => logs.lines().map(({ level, msg, check, failures, suppressed }) => ({ level, msg, check, failures, suppressed }));

it("a failing check is logged once, then at most once per interval with the failures not logged since, and its recovery once", () => {
  const gate = new ReadinessLog();
  const t0 = 1_000_000;
  // A probe every 5 s for a minute and a bit: 14 failures of the database check.
  for (let t = t0; t <= t0 + 65_000; t += 5_000) gate.failed("database", new Error("connect ECONNREFUSED 127.0.0.1:5432"), t);
  gate.passed("database");
  gate.passed("database");
  expect(summary()).toEqual([
    { level: "warn", msg: "readiness check unavailable", check: "database", failures: 1, suppressed: 0 },
    { level: "warn", msg: "readiness check unavailable", check: "database", failures: 7, suppressed: 5 },
    { level: "warn", msg: "readiness check unavailable", check: "database", failures: 13, suppressed: 5 },
    { level: "info", msg: "readiness check ok again", check: "database", failures: 14, suppressed: undefined },
  ]);
  // The reason is in the line (the probe's answer only says "unavailable").
  expect(logs.lines()[0]).toMatchObject({ component: "readiness", err: { message: "connect ECONNREFUSED 127.0.0.1:5432" } });
});

it("each check has its own interval; a check that never failed logs nothing when it passes", () => {
  const gate = new ReadinessLog();
  gate.failed("storage", new Error("bucket gone"), 0);
  gate.failed("jobs", new Error("executor stopped"), 1);
  gate.failed("storage", new Error("bucket gone"), 2);
  gate.failed("storage", new Error("bucket gone"), WARN_EVERY_MS);
  gate.passed("database");
  expect(summary().map((l) => [l.check, l.failures, l.suppressed])).toEqual([
    ["storage", 1, 0],
    ["jobs", 1, 0],
    ["storage", 3, 1],
  ]);
});
