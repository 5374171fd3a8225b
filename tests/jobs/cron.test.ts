import { beforeAll, expect, it } from "vitest";
import type { Db } from "../../lib/db";
import { counters } from "./fixtures/client";
import { everyMinute } from "./fixtures/functions";
import { finishedRuns, jobsDb, runsOf, startExecutor } from "./helpers";

let db: Db;
let offset = 0;
const start = Date.parse("2030-01-01T12:00:30Z") - Date.now();
const clock = () => new Date(Date.now() + start + offset);

beforeAll(async () => {
  ({ db } = await jobsDb());
  await startExecutor(db, { functions: [everyMinute], clock });
});

it("runs a cron function once per tick", async () => {
  await new Promise((r) => setTimeout(r, 300));
  expect(await runsOf(db, "jobs-test-every-minute")).toHaveLength(0); // 12:00:30: the first tick is 12:01
  offset = 60_000;
  const [run] = await finishedRuns(db, "jobs-test-every-minute");
  expect(run.output).toBe("* * * * *");
  await new Promise((r) => setTimeout(r, 300));
  expect(await runsOf(db, "jobs-test-every-minute")).toHaveLength(1);
  expect(counters.get("cron.tick")).toBe(1);
});
