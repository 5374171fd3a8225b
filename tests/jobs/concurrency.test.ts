import { beforeAll, expect, it } from "vitest";
import type { Db } from "../../lib/db";
import { testClient } from "./fixtures/client";
import { intervals } from "./fixtures/functions";
import { finishedRuns, jobsDb, startExecutor } from "./helpers";

let db: Db;

beforeAll(async () => {
  ({ db } = await jobsDb());
  await startExecutor(db, { concurrency: 4 });
});

const overlap = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;

it("never overlaps two runs with the same concurrency key, and runs different keys in parallel", async () => {
  const ms = 400;
  await testClient.send(["a", "a", "a", "b", "b"].map((key) => ({ name: "test/per-key", data: { key, ms } })));
  await finishedRuns(db, "jobs-test-per-key", 5);
  expect(intervals).toHaveLength(5);
  for (const key of ["a", "b"]) {
    const same = intervals.filter((i) => i.key === key);
    for (let i = 0; i < same.length; i++) for (let j = i + 1; j < same.length; j++) expect(overlap(same[i], same[j])).toBe(false);
  }
  const a = intervals.filter((i) => i.key === "a");
  const b = intervals.filter((i) => i.key === "b");
  expect(a.some((x) => b.some((y) => overlap(x, y)))).toBe(true);
});
