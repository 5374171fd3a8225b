import { sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import type { Db } from "../../lib/db";
import { saveSyncedFunctions } from "../../lib/jobs/executor/store/functions";
import { ingestEvents } from "../../lib/jobs/executor/store/ingest";
import { claimBatch, type Claim } from "../../lib/jobs/executor/store/queue";
import { jobsDb } from "./helpers";

/**
 * The claim statement itself (no executor): which items a batch takes when several workspaces
 * have work queued, and that it never takes more than a group allows.
 */

let db: Db;
beforeAll(async () => {
  ({ db } = await jobsDb());
  const now = new Date();
  await saveSyncedFunctions(
    db,
    [{ id: "fair-claim", name: "fair-claim", url: "http://x/api/inngest?fnId=fair-claim&stepId=step", triggers: [{ event: "fair/claim" }], concurrency: [{ limit: 3 }, { key: "event.data.workspaceId", limit: 2 }], maxAttempts: 1 }],
    now,
  );
  // Workspace 1's five first, then 2's, then 3's: arrival order alone would take 1, 1 and 2.
  for (const ws of [1, 2, 3]) await ingestEvents(db, Array.from({ length: 5 }, () => ({ name: "fair/claim", data: { workspaceId: ws } })), new Date(now.getTime() + ws));
});

const claim = (limit: number, turns: [string, number][] = []) => claimBatch(db, new Date(Date.now() + 1000), 60_000, limit, turns);

async function workspacesOf(claims: Claim[]): Promise<number[]> {
  if (!claims.length) return [];
  const ids = claims.map((c) => c.item.id).join(",");
  const rows = await db.execute<{ ws: string }>(
    sql`select (e.payload->'data'->>'workspaceId') as ws from job_queue q join job_runs r on r.id = q.run_id join job_events e on e.id = r.event_id where q.id in ${sql.raw(`(${ids})`)}`,
  );
  const list = (Array.isArray(rows) ? rows : (rows as unknown as { rows: { ws: string }[] }).rows) as { ws: string }[];
  return list.map((r) => Number(r.ws)).sort();
}

/** A call ended: its item leaves the queue, its slot is free. */
const finish = (claims: Claim[]) => db.execute(sql`delete from job_queue where id in ${sql.raw(`(${claims.map((c) => c.item.id).join(",")})`)}`);

it("takes each workspace's next item before any workspace's second, and never more than a group allows", async () => {
  const first = await claim(3);
  expect(await workspacesOf(first.claims)).toEqual([1, 2, 3]);
  // The function's three slots are taken: nothing more, however much is queued.
  expect((await claim(3)).claims).toEqual([]);

  // Workspaces 1 and 2 end a call each: two slots free, and both go to them again (3 still has one in flight).
  await finish(first.claims.filter((c) => c.fairKey?.endsWith("|1") || c.fairKey?.endsWith("|2")));
  const second = await claim(3);
  expect(await workspacesOf(second.claims)).toEqual([1, 2]);
  await finish([...first.claims, ...second.claims].filter((c) => !c.fairKey?.endsWith("|3")));

  // Three slots, workspace 3 holding one: 1 and 2 are level on turns, and the one served least
  // recently goes first when only one can (the executor's record of turns).
  const fairKeyOf = (ws: number) => first.claims.find((c) => c.fairKey?.endsWith(`|${ws}`))!.fairKey!;
  const one = await claim(1, [
    [fairKeyOf(1), 7],
    [fairKeyOf(2), 5],
  ]);
  expect(await workspacesOf(one.claims)).toEqual([2]);
  const other = await claim(1, [
    [fairKeyOf(2), 8],
    [fairKeyOf(1), 7],
  ]);
  expect(await workspacesOf(other.claims)).toEqual([1]);

  // Per workspace: 2 in flight at most, even when it alone has work left and the function has room.
  const all = [...first.claims, ...second.claims, ...one.claims, ...other.claims];
  await finish(all);
  await db.execute(sql`delete from job_queue where lease_token is null and run_id in (select r.id from job_runs r join job_events e on e.id = r.event_id where e.payload->'data'->>'workspaceId' <> '3')`);
  const onlyThree = await claim(3);
  expect(await workspacesOf(onlyThree.claims)).toEqual([3, 3]);
});
