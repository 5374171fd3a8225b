import { and, eq, sql } from "drizzle-orm";
import { queryRows, type Db, type Tx } from "../../../db";
import { jobCalls, jobQueue, jobRuns, type JobError, type JobRun } from "../../../db/schema/jobs";
import { sleepUntil, toJobError, type Op, type Outcome } from "../protocol";
import { ckeyColumns, ingestEvents } from "./ingest";
import type { ClaimedItem } from "./queue";

export type SettleInput = {
  item: ClaimedItem;
  outcome: Outcome;
  maxAttempts: number;
  now: Date;
  backoffMs: (attempt: number) => number;
  /** Lease length, renewed when the worker goes on with the run's next call. */
  leaseMs: number;
  call: { status: number; startedAt: Date; durationMs: number; requestVersion: number | null };
};

const FINISHED = new Set(["completed", "failed"]);

async function lockRun(tx: Tx, runId: string): Promise<JobRun | null> {
  const [run] = await tx.select().from(jobRuns).where(eq(jobRuns.id, runId)).for("update");
  return run ?? null;
}

async function holdsLease(tx: Tx, item: ClaimedItem): Promise<boolean> {
  const [row] = await tx
    .select({ id: jobQueue.id })
    .from(jobQueue)
    .where(and(eq(jobQueue.id, item.id), eq(jobQueue.leaseToken, item.leaseToken)))
    .for("update");
  return Boolean(row);
}

/** First result wins: a step settled twice (a lost lease, a retried settle) keeps its first result. */
async function memoize(tx: Tx, runId: string, op: Op, result: { data: unknown } | { error: JobError }, now: Date) {
  await queryRows(
    tx,
    sql`insert into job_steps (run_id, step_id, seq, name, result, created_at)
        select ${runId}, ${op.id}, coalesce(max(seq), -1) + 1, ${op.displayName ?? op.name ?? null}, ${JSON.stringify(result)}::jsonb, ${now.toISOString()}::timestamptz
        from job_steps where run_id = ${runId}
        on conflict do nothing`,
  );
}

async function reschedule(tx: Tx, item: ClaimedItem, attempt: number, at: Date) {
  await tx.update(jobQueue).set({ attempt, availableAt: at, leaseToken: null, leaseUntil: null }).where(eq(jobQueue.id, item.id));
}

async function isKnown(tx: Tx, runId: string, stepId: string): Promise<boolean> {
  const rows = await queryRows(
    tx,
    sql`select 1 from job_steps where run_id = ${runId} and step_id = ${stepId}
        union all select 1 from job_queue where run_id = ${runId} and step_id = ${stepId}`,
  );
  return rows.length > 0;
}

async function enqueue(tx: Tx, run: JobRun, kind: "call" | "wake", stepId: string, at: Date, name: string | null = null) {
  // Sleeping holds no concurrency slot: only calls carry the run's groups.
  const ckeys = kind === "call" ? ckeyColumns(run.concurrencyKeys) : ckeyColumns([]);
  await tx.insert(jobQueue).values({ runId: run.id, kind, stepId, name, attempt: 0, availableAt: at, ...ckeys });
}

async function finishRun(tx: Tx, run: JobRun, patch: Partial<JobRun>, now: Date) {
  await tx.update(jobRuns).set({ ...patch, endedAt: now }).where(eq(jobRuns.id, run.id));
  await tx.delete(jobQueue).where(eq(jobQueue.runId, run.id));
}

/** A failed run emits `inngest/function.failed`, which triggers its onFailure function (`<id>-failure`). */
async function failRun(tx: Tx, run: JobRun, error: JobError, now: Date) {
  await finishRun(tx, run, { status: "failed", error, lastError: error }, now);
  const [{ payload }] = await queryRows<{ payload: Record<string, unknown> }>(tx, sql`select payload from job_events where id = ${run.eventId}`);
  await ingestEvents(tx, [{ name: "inngest/function.failed", data: { function_id: run.functionId, run_id: run.id, error, event: payload } }], now);
}

type Applied = {
  label: string;
  /** "retry": the item was rescheduled; "done": the item's work is over; "ended": the run ended (its items are gone). */
  item: "retry" | "done" | "ended";
  runPatch: Partial<JobRun>;
};

async function applyOps(tx: Tx, run: JobRun, input: SettleInput, ops: Op[], retryAfterMs: number | undefined): Promise<Applied> {
  const { item, now, maxAttempts } = input;
  const runPatch: Partial<JobRun> = {};
  let retry = false;
  const labels = new Set<string>();
  if (ops.length > 1) runPatch.disableImmediateExecution = true;
  for (const op of ops) {
    switch (op.op) {
      case "StepRun":
        await memoize(tx, run.id, op, { data: op.data ?? null }, now);
        labels.add("step");
        break;
      case "StepError":
      case "StepFailed": {
        const error = toJobError(op.error, "step failed");
        runPatch.lastError = error;
        if (op.op === "StepError" && item.attempt + 1 < maxAttempts) {
          const delay = retryAfterMs ?? input.backoffMs(item.attempt + 1);
          await reschedule(tx, item, item.attempt + 1, new Date(now.getTime() + delay));
          retry = true;
          labels.add("retry");
        } else {
          // The SDK then throws this error inside the function, which may catch it.
          await memoize(tx, run.id, op, { error }, now);
          labels.add("step-failed");
        }
        break;
      }
      case "Sleep":
        if (!(await isKnown(tx, run.id, op.id))) await enqueue(tx, run, "wake", op.id, sleepUntil(op, now), op.displayName ?? null);
        labels.add("sleep");
        break;
      case "StepPlanned":
        if (!(await isKnown(tx, run.id, op.id))) await enqueue(tx, run, "call", op.id, now, op.displayName ?? op.name ?? null);
        labels.add("planned");
        break;
      default: {
        const error = { name: "UnsupportedStep", message: `Easel's embedded executor does not support ${op.op} (step "${op.displayName ?? op.id}")` };
        await failRun(tx, run, error, now);
        return { label: "failed", item: "ended", runPatch: {} };
      }
    }
  }
  return { label: [...labels].join(",") || "empty", item: retry ? "retry" : "done", runPatch };
}

async function applyOutcome(tx: Tx, run: JobRun, input: SettleInput): Promise<Applied> {
  const { item, outcome, now, maxAttempts } = input;
  switch (outcome.kind) {
    case "ops":
      return applyOps(tx, run, input, outcome.ops, outcome.retryAfterMs);
    case "completed":
      await finishRun(tx, run, { status: "completed", output: outcome.output }, now);
      return { label: "completed", item: "ended", runPatch: {} };
    case "error":
      if (outcome.retriable && item.attempt + 1 < maxAttempts) {
        const delay = outcome.retryAfterMs ?? input.backoffMs(item.attempt + 1);
        await reschedule(tx, item, item.attempt + 1, new Date(now.getTime() + delay));
        return { label: "retry", item: "retry", runPatch: { lastError: outcome.error } };
      }
      await failRun(tx, run, outcome.error, now);
      return { label: "failed", item: "ended", runPatch: {} };
  }
}

/**
 * The item's work is over. A run waits for all its outstanding items (parallel steps, sleeps)
 * before it is called again. When this was the last one, the same row becomes the run's next
 * discovery call and the worker keeps its lease, so a run of sequential steps goes on without
 * going back through the queue; otherwise the row is deleted.
 */
async function release(tx: Tx, item: ClaimedItem, leaseMs: number): Promise<ClaimedItem | null> {
  const others = await queryRows(tx, sql`select 1 from job_queue where run_id = ${item.runId} and id <> ${item.id} limit 1`);
  if (others.length) {
    await tx.delete(jobQueue).where(eq(jobQueue.id, item.id));
    return null;
  }
  await tx.execute(sql`update job_queue set step_id = 'step', name = null, attempt = 0,
    lease_until = clock_timestamp() + ${leaseMs} * interval '1 millisecond' where id = ${item.id}`);
  return { ...item, stepId: "step", name: null, attempt: 0 };
}

export type Settled = { label: string; next: ClaimedItem | null };

/**
 * Records what a call's answer means for its run, in one transaction with the run locked. `next`
 * is the run's next call when this worker should make it right away (it still holds the lease).
 */
export async function settleCall(db: Db, input: SettleInput): Promise<Settled> {
  const { item, outcome, now } = input;
  return db.transaction(async (tx) => {
    const run = await lockRun(tx, item.runId);
    if (!run) return { label: "run-gone", next: null };
    let applied: Applied;
    let next: ClaimedItem | null = null;
    if (!(await holdsLease(tx, item))) applied = { label: "lease-lost", item: "ended", runPatch: {} };
    else if (FINISHED.has(run.status)) {
      await tx.delete(jobQueue).where(eq(jobQueue.id, item.id));
      applied = { label: "run-ended", item: "ended", runPatch: {} };
    } else {
      applied = await applyOutcome(tx, run, input);
      if (applied.item === "done") next = await release(tx, item, input.leaseMs);
    }
    await tx
      .update(jobRuns)
      .set({
        ...applied.runPatch,
        calls: sql`${jobRuns.calls} + 1`,
        attempt: item.attempt,
        requestVersion: sql`coalesce(${jobRuns.requestVersion}, ${input.call.requestVersion})`,
      })
      .where(eq(jobRuns.id, run.id));
    const error = outcome.kind === "error" ? `${outcome.error.name}: ${outcome.error.message}` : null;
    await tx.insert(jobCalls).values({
      runId: run.id,
      stepId: item.stepId,
      attempt: item.attempt,
      status: input.call.status,
      outcome: applied.label,
      error,
      startedAt: input.call.startedAt,
      durationMs: input.call.durationMs,
    });
    return { label: applied.label, next };
  });
}

/** Gives an item back to the queue (a stopping worker that was about to go on with a run). */
export async function unlease(db: Db, item: ClaimedItem) {
  await db.update(jobQueue).set({ leaseToken: null, leaseUntil: null }).where(and(eq(jobQueue.id, item.id), eq(jobQueue.leaseToken, item.leaseToken)));
}

/**
 * A sleep has ended: memoize it (null, per the spec) and let the run go on. No call is made; the
 * next call is a new row, because wake rows carry no concurrency group and calls must.
 */
export async function settleWake(db: Db, item: ClaimedItem, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    const run = await lockRun(tx, item.runId);
    if (!run || !(await holdsLease(tx, item))) return;
    await tx.delete(jobQueue).where(eq(jobQueue.id, item.id));
    if (FINISHED.has(run.status)) return;
    await memoize(tx, run.id, { id: item.stepId, op: "Sleep", displayName: item.name ?? undefined }, { data: null }, now);
    const others = await queryRows(tx, sql`select 1 from job_queue where run_id = ${run.id} limit 1`);
    if (others.length === 0) await enqueue(tx, run, "call", "step", now);
  });
}
