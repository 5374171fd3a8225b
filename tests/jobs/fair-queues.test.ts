import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import type { Db } from "../../lib/db";
import { testClient } from "./fixtures/client";
import { finishedRuns, jobsDb, startExecutor, waitFor } from "./helpers";

/**
 * Contract §13, fair queues: a workspace with a thousand queued jobs delays another workspace's
 * new job by at most one job's run, never holds every slot, and workspaces with backlogs are
 * served in turns. Asserted by the order in which runs start, not by how fast they start.
 */

type Start = { fn: string; ws: string; asset?: number; start: number; end: number };
const starts: Start[] = [];

/** One step that holds its slot for `ms`, recording when it ran. */
function slowFunction(id: string, concurrency: [{ limit: number }, { key: string; limit: number }]) {
  return testClient.createFunction({ id, retries: 0, concurrency, triggers: [{ event: `fair/${id}` }] }, async ({ event, step }) => {
    await step.run("work", async () => {
      // Recorded as it starts (runs in flight count as started); `end` once it is over.
      const run: Start = { fn: id, ws: String(event.data.workspaceId ?? ""), asset: event.data.assetId as number | undefined, start: Date.now(), end: Infinity };
      starts.push(run);
      await new Promise((r) => setTimeout(r, event.data.ms as number));
      run.end = Date.now();
    });
  });
}

// Four slots for the function, two per workspace: with the executor's two slots, one workspace can fill the executor.
const flood = slowFunction("fair-flood", [{ limit: 4 }, { key: "event.data.workspaceId", limit: 2 }]);
// One slot: the order of starts is the order of service.
const turns = slowFunction("fair-turns", [{ limit: 1 }, { key: "event.data.workspaceId", limit: 1 }]);
// The rule Easel's processing declares (lib/media/process-asset.job.ts).
const processing = slowFunction("fair-processing", [{ limit: 2 }, { key: "event.data.workspaceId", limit: 1 }]);

let db: Db;
beforeAll(async () => {
  ({ db } = await jobsDb());
  await startExecutor(db, { functions: [flood, turns, processing], concurrency: 2 });
});

const send = (fn: string, data: Record<string, unknown>[]) => testClient.send(data.map((d) => ({ name: `fair/${fn}`, data: d })));
const runsOf = (fn: string) => starts.filter((s) => s.fn === fn).sort((a, b) => a.start - b.start);

/** Most runs of `ws` in flight at any moment, from their intervals. */
function mostAtOnce(runs: Start[]): number {
  const edges = runs.flatMap((r) => [{ t: r.start, d: 1 }, { t: Math.min(r.end, Date.now()), d: -1 }]).sort((a, b) => a.t - b.t || a.d - b.d);
  let now = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (now += e.d));
  return most;
}

/** What is left of a backlog once its test has its answer: not run, so the next test starts on an empty queue. */
async function dropQueued(fn: string) {
  await db.execute(sql`delete from job_queue where lease_token is null and run_id in (select id from job_runs where function_id = ${`jobs-test-${fn}`})`);
}

it("starts workspace B's new job within one of A's runs while A has 1,000 queued, and A never holds every slot of the function", async () => {
  await send("fair-flood", Array.from({ length: 1000 }, () => ({ workspaceId: 1, ms: 150 })));
  // A fills both of the executor's slots (two per workspace), then B sends one job.
  await waitFor(async () => runsOf("fair-flood").length >= 3, 20_000, "A's first runs");
  const startedBeforeB = runsOf("fair-flood").length;
  await send("fair-flood", [{ workspaceId: 2, ms: 150 }]);
  const b = await waitFor(async () => runsOf("fair-flood").find((s) => s.ws === "2"), 15_000, "B's run").catch(() => null);
  const aMeanwhile = runsOf("fair-flood").filter((s) => s.ws === "1").length - startedBeforeB;
  await dropQueued("fair-flood");
  await waitFor(async () => !(await inFlight()), 20_000, "A's runs in flight to end");

  expect(b, `B's run had not started after 15 s; A ran ${aMeanwhile} more runs meanwhile`).not.toBeNull();
  // B's run starts when one of the A runs in flight at its send ends: at most one A run (one a
  // claim was already taking at the send) starts between B's send and B's start.
  const aStartedBeforeBStarted = runsOf("fair-flood").filter((s) => s.ws === "1" && s.start < b!.start).length - startedBeforeB;
  expect(aStartedBeforeBStarted, "A runs started after B's send and before B's").toBeLessThanOrEqual(1);
  expect(mostAtOnce(runsOf("fair-flood").filter((s) => s.ws === "1")), "A's runs in flight at once").toBeLessThanOrEqual(2);
}, 60_000);

it("serves three workspaces with backlogs in turns, and a fourth's new job next", async () => {
  // Each workspace queues its whole backlog before the next does: arrival order alone would serve A's twelve first.
  for (const ws of [11, 12, 13]) await send("fair-turns", Array.from({ length: 12 }, () => ({ workspaceId: ws, ms: 60 })));
  await waitFor(async () => runsOf("fair-turns").length >= 9, 20_000, "nine runs");
  const beforeD = runsOf("fair-turns").length;
  await send("fair-turns", [{ workspaceId: 14, ms: 60 }]);
  await waitFor(async () => runsOf("fair-turns").length >= 24, 30_000, "twenty-four runs");
  await dropQueued("fair-turns");
  await waitFor(async () => !(await inFlight()), 20_000, "runs in flight to end");

  const order = runsOf("fair-turns").map((s) => s.ws);
  // The first nine: three rounds, each workspace once per round.
  for (let round = 0; round < 3; round++) expect(new Set(order.slice(round * 3, round * 3 + 3)), `round ${round + 1} of ${order.join(",")}`).toEqual(new Set(["11", "12", "13"]));
  // The newcomer waits for the run in flight at its send and at most one claimed at that moment.
  expect(order.indexOf("14") - beforeD, `runs between D's send and D's start in ${order.join(",")}`).toBeLessThanOrEqual(1);
  expect(order.indexOf("14")).toBeGreaterThanOrEqual(beforeD);
  // Never the same workspace twice in a row while the others wait (D had one run only).
  const backlog = order.filter((w) => w !== "14");
  for (let i = 1; i < backlog.length; i++) expect(backlog[i], `position ${i} of ${backlog.join(",")}`).not.toBe(backlog[i - 1]);
}, 60_000);

it("keeps two runs of one asset apart under the per-workspace rule, and runs events stored without a workspace, one at a time", async () => {
  await send("fair-processing", [
    ...Array.from({ length: 3 }, () => ({ workspaceId: 21, assetId: 1, ms: 120 })),
    ...Array.from({ length: 3 }, () => ({ workspaceId: 22, assetId: 2, ms: 120 })),
    // Stored before events carried a workspace (an upgrade with a queued job): the key is "".
    ...Array.from({ length: 3 }, (_, i) => ({ assetId: 30 + i, ms: 120 })),
  ]);
  await finishedRuns(db, "jobs-test-fair-processing", 9);
  const runs = runsOf("fair-processing");
  expect(runs).toHaveLength(9);
  const overlap = (a: Start, b: Start) => a.start < b.end && b.start < a.end;
  for (const group of [runs.filter((r) => r.asset === 1), runs.filter((r) => r.asset === 2), runs.filter((r) => r.ws === "")]) {
    expect(group).toHaveLength(3);
    expect(mostAtOnce(group)).toBe(1);
  }
  // Two workspaces do run at once (the function's limit is 2).
  expect(runs.some((a) => a.ws === "21" && runs.some((b) => b.ws === "22" && overlap(a, b)))).toBe(true);
}, 60_000);

async function inFlight(): Promise<boolean> {
  const rows = await db.execute(sql`select 1 from job_queue where lease_until >= clock_timestamp() limit 1`);
  const list = Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows;
  return list.length > 0;
}
