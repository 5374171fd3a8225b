import { asc, desc, eq } from "drizzle-orm";
import type { DbOrTx } from "../../db";
import { jobCalls, jobEvents, jobQueue, jobRuns, jobSteps } from "../../db/schema/jobs";
import { toRunJson } from "./present";

/** One run with its event, memoized steps, pending work and latest calls; null when unknown. */
export async function getRun(db: DbOrTx, id: string) {
  const [row] = await db.select({ run: jobRuns, event: jobEvents.payload }).from(jobRuns).leftJoin(jobEvents, eq(jobEvents.id, jobRuns.eventId)).where(eq(jobRuns.id, id));
  if (!row) return null;
  const [steps, pending, calls] = await Promise.all([
    db.select().from(jobSteps).where(eq(jobSteps.runId, id)).orderBy(asc(jobSteps.seq)),
    db.select().from(jobQueue).where(eq(jobQueue.runId, id)).orderBy(asc(jobQueue.id)),
    db.select().from(jobCalls).where(eq(jobCalls.runId, id)).orderBy(desc(jobCalls.id)).limit(100),
  ]);
  return {
    ...toRunJson(row.run, typeof row.event?.name === "string" ? row.event.name : null),
    event: row.event ?? null,
    steps: steps.map((s) => ({ seq: s.seq, name: s.name, step_id: s.stepId, ok: "data" in s.result, at: s.createdAt.toISOString() })),
    pending: pending.map((q) => ({ kind: q.kind, name: q.name, step_id: q.stepId, attempt: q.attempt, available_at: q.availableAt.toISOString(), leased: q.leaseToken !== null })),
    calls: calls.map((c) => ({ step_id: c.stepId, attempt: c.attempt, status: c.status, outcome: c.outcome, error: c.error, started_at: c.startedAt.toISOString(), duration_ms: c.durationMs })),
  };
}
