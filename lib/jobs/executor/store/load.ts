import { and, eq, sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db";
import { jobFunctions, jobQueue, type JobFunction } from "../../../db/schema/jobs";
import { memoizedStepsOf, parseCallState, type CallState, type CallStateRow } from "./call-state";
import type { ClaimedItem } from "./queue";

export type { CallState } from "./call-state";

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

/** What a call needs: the run, its event and memoized steps in completion order; null when the run is gone. */
export async function loadCallState(db: Db, item: ClaimedItem): Promise<CallState | null> {
  const [row] = await queryRows<CallStateRow>(
    db,
    sql`select r.status, r.function_id, r.disable_immediate_execution, r.request_version, e.payload as event, ${memoizedStepsOf(sql`r.id`)} as steps
      from job_runs r join job_events e on e.id = r.event_id where r.id = ${item.runId}`,
  );
  return row ? parseCallState(row, item.runId) : null;
}

/** A run's first call: from then on the admin view shows it running. */
export async function markRunStarted(db: Db, runId: string, now: Date) {
  await queryRows(db, sql`update job_runs set status = 'running', started_at = ${now.toISOString()}::timestamptz where id = ${runId} and status = 'queued'`);
}

/** An item of a run that no longer exists or has already ended. */
export async function dropItem(db: Db, item: ClaimedItem) {
  await db.delete(jobQueue).where(and(eq(jobQueue.id, item.id), eq(jobQueue.leaseToken, item.leaseToken)));
}
