import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { isSingleSession, queryRows, type Db, type DbOrTx, type Tx } from "../../../db";
import { jobCalls, jobQueue, jobRuns, type JobError, type JobRun } from "../../../db/schema/jobs";
import { sleepUntil, toJobError, type MemoizedStep, type Op, type Outcome } from "../protocol";
import { ckeyColumns, ingestEvents } from "./ingest";
import { claimsFromJson, unkeyedClaimCtes, type Claim, type ClaimedItem } from "./queue";
import { runStatement, Statement } from "./statement";

export type SettleInput = {
  item: ClaimedItem;
  outcome: Outcome;
  maxAttempts: number;
  now: Date;
  backoffMs: (attempt: number) => number;
  /** Lease length, renewed when the worker goes on with the run's next call. */
  leaseMs: number;
  call: { status: number; startedAt: Date; durationMs: number; requestVersion: number | null };
  /**
   * The run has had no parallel steps (`disable_immediate_execution` unset): this item is its only
   * one, so only the holder of its lease writes the run, and a settle needs no lock on the run.
   */
  sequential?: boolean;
  /** The worker is free for another item once this one's work is over: claim it in the settle's statement. */
  claimNext?: boolean;
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
      for (const step of outcome.steps ?? []) await memoize(tx, run.id, step, { data: step.data ?? null }, now);
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

export type Settled = {
  label: string;
  next: ClaimedItem | null;
  /** When `next` is set and the settle knows the run's state after it: the next call needs no reload. `memoized`: every memoized step of the run, in order. */
  state?: { run: Pick<JobRun, "status" | "disableImmediateExecution" | "requestVersion">; memoized: MemoizedStep[] };
  /** Without `next`: another item this worker claimed in the settle's statement (`claimNext`), leased to it. */
  claimed?: Claim[];
  /** The run ended, and the settle's claim saw no item due at all: nothing for the loop to look for. */
  nothingDue?: boolean;
};

/**
 * Locks the run and, in the same statement, the item if this worker still holds its lease (run
 * row first, then queue row: the order every settle takes). No row: the lease is lost or the run
 * is gone, told apart by a second look.
 */
async function lockRunAndItem(tx: Tx, item: ClaimedItem): Promise<{ run: JobRun | null; held: boolean }> {
  const [row] = await tx
    .select({ run: jobRuns })
    .from(jobRuns)
    .innerJoin(jobQueue, and(eq(jobQueue.id, item.id), eq(jobQueue.leaseToken, item.leaseToken)))
    .where(eq(jobRuns.id, item.runId))
    .for("update");
  if (row) return { run: row.run, held: true };
  return { run: await lockRun(tx, item.runId), held: false };
}

type Memo = { op: Op; result: { data: unknown } | { error: JobError } };

/**
 * The common answers (a step's result, a step error to retry or to memoize, a retriable call
 * error, completion) need no reads beyond the locks, so they are written in one statement:
 * memoized results, the item's next state (rescheduled, handed back to this worker as the run's
 * next call, or deleted when other items of the run are outstanding), the run's counters and
 * the call log. Null when the answer needs the general path (sleeps, planned steps, a failure).
 */
function fastPlan(input: SettleInput): { label: string; memos: Memo[]; retryAt: Date | null; patch: Patch[]; end: boolean } | null {
  const { item, outcome, now, maxAttempts } = input;
  const retryDelay = (after?: number) => new Date(now.getTime() + (after ?? input.backoffMs(item.attempt + 1)));
  const canRetry = item.attempt + 1 < maxAttempts;
  if (outcome.kind === "completed") {
    const memos = (outcome.steps ?? []).map((op) => ({ op, result: { data: op.data ?? null } }));
    const output = outcome.output === null || outcome.output === undefined ? null : outcome.output;
    return { label: memos.length ? "step,completed" : "completed", memos, retryAt: null, end: true, patch: [() => "status = 'completed'", (st) => `output = ${st.json(output)}`, (st) => `ended_at = ${st.at(now)}`] };
  }
  if (outcome.kind === "error") {
    if (!(outcome.retriable && canRetry)) return null;
    return { label: "retry", memos: [], retryAt: retryDelay(outcome.retryAfterMs), end: false, patch: [(st) => `last_error = ${st.json(outcome.error)}`] };
  }
  const memos: Memo[] = [];
  const labels = new Set<string>();
  let retryAt: Date | null = null;
  let lastError: JobError | null = null;
  for (const op of outcome.ops) {
    if (op.op === "StepRun") {
      memos.push({ op, result: { data: op.data ?? null } });
      labels.add("step");
    } else if (op.op === "StepError" || op.op === "StepFailed") {
      lastError = toJobError(op.error, "step failed");
      if (op.op === "StepError" && canRetry) {
        retryAt = retryDelay(outcome.retryAfterMs);
        labels.add("retry");
      } else {
        memos.push({ op, result: { error: lastError } });
        labels.add("step-failed");
      }
    } else return null;
  }
  // Two reschedules of one item in one answer (parallel step errors) is left to the general path.
  if (outcome.ops.filter((o) => o.op === "StepError").length > 1 && retryAt) return null;
  const patch: Patch[] = [];
  if (outcome.ops.length > 1) patch.push(() => "disable_immediate_execution = true");
  const error = lastError;
  if (error) patch.push((st) => `last_error = ${st.json(error)}`);
  return { label: [...labels].join(",") || "empty", memos, retryAt, end: false, patch };
}

/** A column the settle sets on the run, written into a statement. */
type Patch = (st: Statement) => string;

type FastRow = { status: JobRun["status"]; disable_immediate_execution: boolean; request_version: number | null; continued: boolean; memoized: MemoizedStep[] | string | null; claimed?: unknown; nothing_due?: boolean };

/** Settles of more memoized steps than this are rare: their statements are not prepared. */
const PREPARED_UP_TO = 4;

/**
 * Writes a fast plan in one statement. `guarded`: the statement checks for itself that the
 * worker holds the lease and the run has not ended, and answers null, having written nothing,
 * when either is not so. It locks the queue row as it checks it: on PostgreSQL a claim or a
 * renewal that changed the row meanwhile is waited for and the check made on the row as it now
 * is, so a worker whose lease was just taken over writes nothing.
 */
async function settleFast(tx: DbOrTx, input: SettleInput, plan: NonNullable<ReturnType<typeof fastPlan>>, guarded: boolean): Promise<Settled | null> {
  const { item, now, leaseMs } = input;
  const st = new Statement();
  const runId = st.p(item.runId, "text");
  // Numbered where first used: a parameter the text never mentions has no type PostgreSQL can infer.
  let itemIdParam: string | null = null;
  const itemId = () => (itemIdParam ??= st.p(item.id, "bigint"));
  const ctes: string[] = [];
  if (guarded) {
    ctes.push(`guard as (select q.id from job_queue q join job_runs r on r.id = q.run_id
      where q.id = ${itemId()} and q.lease_token = ${st.p(item.leaseToken, "text")} and r.status not in ('completed', 'failed')
      for update of q)`);
  }
  const ok = guarded ? "exists (select 1 from guard)" : "true";
  if (plan.memos.length) {
    const values = plan.memos.map((m, i) => `(${st.p(m.op.id, "text")}, ${i + 1}, ${st.p(m.op.displayName ?? m.op.name ?? null, "text")}, ${st.json(m.result)})`);
    // First result wins (on conflict do nothing): a step settled twice keeps its first result.
    ctes.push(`memo as (insert into job_steps (run_id, step_id, seq, name, result, created_at)
      select ${runId}, v.step_id, (select coalesce(max(seq), -1) from job_steps where run_id = ${runId}) + v.ord, v.name, v.result, ${st.at(now)}
      from (values ${values.join(", ")}) as v(step_id, ord, name, result) where ${ok}
      on conflict do nothing returning step_id, seq, result)`);
  } else {
    ctes.push("memo as (select null::text as step_id, null::int as seq, null::jsonb as result where false)");
  }
  if (plan.end) {
    ctes.push(`item as (delete from job_queue where run_id = ${runId} and ${ok} returning false as continued)`);
  } else if (plan.retryAt) {
    ctes.push(`item as (update job_queue set attempt = ${st.p(item.attempt + 1, "int")}, available_at = ${st.at(plan.retryAt)}, lease_token = null, lease_until = null
      where id = ${itemId()} and ${ok} returning false as continued)`);
  } else {
    // The item's work is over. A run waits for all its outstanding items (parallel steps, sleeps)
    // before it is called again; when this was the last one, the same row becomes the run's next
    // discovery call and this worker keeps its lease, else the row goes.
    ctes.push(`others as (select exists (select 1 from job_queue where run_id = ${runId} and id <> ${itemId()}) as busy)`);
    ctes.push(`dropped as (delete from job_queue where id = ${itemId()} and (select busy from others) and ${ok})`);
    ctes.push(`item as (update job_queue set step_id = 'step', name = null, attempt = 0, lease_until = clock_timestamp() + ${st.p(leaseMs, "int")} * interval '1 millisecond'
      where id = ${itemId()} and not (select busy from others) and ${ok} returning true as continued)`);
  }
  const error = input.outcome.kind === "error" ? `${input.outcome.error.name}: ${input.outcome.error.message}` : null;
  const attempt = st.p(item.attempt, "int");
  ctes.push(`logged as (insert into job_calls (run_id, step_id, attempt, status, outcome, error, started_at, duration_ms)
    select ${runId}, ${st.p(item.stepId, "text")}, ${attempt}, ${st.p(input.call.status, "int")}, ${st.p(plan.label, "text")}, ${st.p(error, "text")}, ${st.at(input.call.startedAt)}, ${st.p(input.call.durationMs, "int")}
    where ${ok})`);
  // A settle that frees its worker (the run ended, or waits for a retry) claims the worker's next
  // item too: one statement instead of two per run when work is queued. Only when this settle
  // wrote (`ok`), and never an item of a concurrency group (the counting claim takes those).
  const claimToken = input.claimNext && (plan.end || plan.retryAt) ? crypto.randomUUID() : null;
  if (claimToken) ctes.push(unkeyedClaimCtes(st, now, claimToken, leaseMs, 1, ok));
  const sets = [...plan.patch.map((set) => set(st)), "calls = calls + 1", `attempt = ${attempt}`, `request_version = coalesce(request_version, ${st.p(input.call.requestVersion, "int")})`];
  const text = `with ${ctes.join(", ")}
    update job_runs set ${sets.join(", ")} where id = ${runId} and ${ok}
    returning status, disable_immediate_execution, request_version,
      coalesce((select bool_or(continued) from item), false) as continued,
      case when (select bool_or(continued) from item) then (
        select json_agg(json_build_object('stepId', m.step_id, 'result', m.result) order by m.seq)
        from (select step_id, seq, result from job_steps where run_id = ${runId} union all select step_id, seq, result from memo) m
      ) end as memoized${claimToken ? ", (select json_agg(row_to_json(c)) from claimed c) as claimed, not exists (select 1 from head) as nothing_due" : ""}`;
  const [row] = await runStatement<FastRow>(tx, text, st.params, plan.memos.length <= PREPARED_UP_TO);
  if (!row) return null;
  if (!row.continued) {
    if (!claimToken) return { label: plan.label, next: null };
    return { label: plan.label, next: null, claimed: claimsFromJson(row.claimed, claimToken), nothingDue: plan.end && row.nothing_due === true };
  }
  // Every memoized step of the run (those stored before, a checkpoint's among them, and this
  // settle's own), so the next call goes out without reloading the run.
  const memoized = (typeof row.memoized === "string" ? JSON.parse(row.memoized) : row.memoized) ?? [];
  const next = { ...item, stepId: "step", name: null, attempt: 0 };
  return {
    label: plan.label,
    next,
    state: {
      run: { status: row.status, disableImmediateExecution: row.disable_immediate_execution, requestVersion: row.request_version === null ? null : Number(row.request_version) },
      memoized,
    },
  };
}

/**
 * Records what a call's answer means for its run. `next` is the run's next call when this worker
 * should make it right away (it still holds the lease). The common answers of a run without
 * parallel steps (and every common answer on PGlite, one session) are one guarded statement;
 * the rest take a transaction with the run locked, so that settles of a run's parallel items
 * see each other.
 */
export async function settleCall(db: Db, input: SettleInput): Promise<Settled> {
  const { item, outcome } = input;
  // What the guarded statement declines (a lost lease, an ended run) is sorted out by the
  // general path below.
  const plan = fastPlan(input);
  if (plan && (input.sequential || isSingleSession(db))) {
    const settled = await settleFast(db, input, plan, true);
    if (settled) return settled;
  }
  return db.transaction(async (tx) => {
    const { run, held } = await lockRunAndItem(tx, item);
    if (!run) return { label: "run-gone", next: null };
    let applied: Applied;
    let next: ClaimedItem | null = null;
    if (!held) applied = { label: "lease-lost", item: "ended", runPatch: {} };
    else if (FINISHED.has(run.status)) {
      await tx.delete(jobQueue).where(eq(jobQueue.id, item.id));
      applied = { label: "run-ended", item: "ended", runPatch: {} };
    } else {
      if (plan) return (await settleFast(tx, input, plan, false))!;
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
