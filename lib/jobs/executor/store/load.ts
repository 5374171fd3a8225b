import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../../db";
import { jobEvents, jobFunctions, jobQueue, jobRuns, type JobFunction, type JobRun } from "../../../db/schema/jobs";
import type { MemoizedStep } from "../protocol";
import type { ClaimedItem } from "./queue";

export type CallState = {
  run: JobRun;
  event: Record<string, unknown>;
  fn: JobFunction | null;
  steps: MemoizedStep[];
};

/** A memo of function rows: they only change when the serve route is synced (this cache is dropped then, or after `ttlMs`). */
export function functionCache(db: Db, ttlMs = 10_000) {
  let rows = new Map<string, JobFunction>();
  let loadedAt = 0;
  return {
    async get(id: string): Promise<JobFunction | null> {
      if (Date.now() - loadedAt > ttlMs || !rows.has(id)) {
        rows = new Map((await db.select().from(jobFunctions)).map((f) => [f.id, f]));
        loadedAt = Date.now();
      }
      return rows.get(id) ?? null;
    },
    clear: () => void (loadedAt = 0),
  };
}

/** What a call needs: the run, its event, its function (null if no longer served) and memoized steps in completion order. */
export async function loadCallState(db: Db, item: ClaimedItem, functions: ReturnType<typeof functionCache>): Promise<CallState | null> {
  const [row] = await db
    .select({
      run: jobRuns,
      event: jobEvents.payload,
      steps: sql<MemoizedStep[]>`(select coalesce(json_agg(json_build_object('stepId', s.step_id, 'result', s.result) order by s.seq), '[]'::json)
        from job_steps s where s.run_id = ${jobRuns.id})`,
    })
    .from(jobRuns)
    .innerJoin(jobEvents, eq(jobEvents.id, jobRuns.eventId))
    .where(eq(jobRuns.id, item.runId));
  if (!row) return null;
  const steps = typeof row.steps === "string" ? (JSON.parse(row.steps) as MemoizedStep[]) : row.steps;
  return { run: row.run, event: row.event, fn: await functions.get(row.run.functionId), steps };
}

/** A run's first call: from then on the admin view shows it running. */
export async function markRunStarted(db: Db, runId: string, now: Date) {
  await db
    .update(jobRuns)
    .set({ status: "running", startedAt: now })
    .where(and(eq(jobRuns.id, runId), eq(jobRuns.status, "queued")));
}

/** An item of a run that no longer exists or has already ended. */
export async function dropItem(db: Db, item: ClaimedItem) {
  await db.delete(jobQueue).where(and(eq(jobQueue.id, item.id), eq(jobQueue.leaseToken, item.leaseToken)));
}
