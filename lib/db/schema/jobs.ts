import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * State of the embedded job executor (lib/jobs/executor). Unused when a real Inngest server runs
 * the jobs (INNGEST_* set). Ids are time-ordered text ids (ULIDs), as Inngest's are.
 */
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export type JobTrigger = { event: string; expression?: string } | { cron: string };
/** A concurrency rule as synced: `key` is an expression over `event`; `scope` "fn" limits per function. */
export type JobConcurrency = { limit: number; key?: string; scope?: "fn" | "env" | "account" };
/** The error shape of the SDK protocol. */
export type JobError = { name: string; message: string; stack?: string };

/** Functions learnt from the serve route by the last in-band sync. */
export const jobFunctions = pgTable("job_functions", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  /** The call URL the SDK reported (…?fnId=<id>&stepId=step). */
  url: text("url").notNull(),
  triggers: jsonb("triggers").$type<JobTrigger[]>().notNull(),
  concurrency: jsonb("concurrency").$type<JobConcurrency[]>().notNull(),
  /** retries + 1: the SDK's `retries` (default 3) counts retries, not attempts. */
  maxAttempts: integer("max_attempts").notNull(),
  syncedAt: ts("synced_at").notNull(),
});

/** One row per (function, cron expression): the next tick is claimed atomically by one node. */
export const jobCrons = pgTable(
  "job_crons",
  {
    functionId: text("function_id").notNull(),
    cron: text("cron").notNull(),
    nextAt: ts("next_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.functionId, t.cron] })],
);

export const jobEvents = pgTable(
  "job_events",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    /** The event as functions receive it: { id, name, data, ts, ... }. */
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    /** The sender's own event id: a second event with the same id triggers nothing. */
    dedupeKey: text("dedupe_key"),
    receivedAt: ts("received_at").notNull(),
  },
  (t) => [uniqueIndex("job_events_dedupe_key").on(t.dedupeKey), index("job_events_received_idx").on(t.receivedAt)],
);

export const JOB_RUN_STATUSES = ["queued", "running", "completed", "failed"] as const;
export type JobRunStatus = (typeof JOB_RUN_STATUSES)[number];

export const jobRuns = pgTable(
  "job_runs",
  {
    id: text("id").primaryKey(),
    functionId: text("function_id").notNull(),
    eventId: text("event_id")
      .notNull()
      .references(() => jobEvents.id, { onDelete: "cascade" }),
    status: text("status").$type<JobRunStatus>().notNull(),
    /** Attempt number (0-based) of the most recent call: retries of the current step so far. */
    attempt: integer("attempt").notNull().default(0),
    /** Calls made to the serve route for this run, retries included. */
    calls: integer("calls").notNull().default(0),
    /** Concurrency groups of this run, evaluated from its event once, at creation. */
    concurrencyKeys: jsonb("concurrency_keys").$type<{ key: string; limit: number }[]>().notNull(),
    /** Set once the SDK reported parallel steps: from then on every step is planned before it runs. */
    disableImmediateExecution: boolean("disable_immediate_execution").notNull().default(false),
    /** Execution version the SDK chose on the first call (x-inngest-req-version), sent back on later calls. */
    requestVersion: integer("request_version"),
    output: jsonb("output"),
    /** The final error of a failed run. */
    error: jsonb("error").$type<JobError>(),
    /** The latest error seen, even one a retry got past. */
    lastError: jsonb("last_error").$type<JobError>(),
    createdAt: ts("created_at").notNull(),
    startedAt: ts("started_at"),
    endedAt: ts("ended_at"),
  },
  (t) => [index("job_runs_created_idx").on(t.createdAt), index("job_runs_status_idx").on(t.status, t.createdAt)],
);

/** Memoized step results, in completion order (`seq`): the SDK's `steps` and `ctx.stack`. */
export const jobSteps = pgTable(
  "job_steps",
  {
    runId: text("run_id")
      .notNull()
      .references(() => jobRuns.id, { onDelete: "cascade" }),
    /** The hashed step id the SDK uses. */
    stepId: text("step_id").notNull(),
    seq: integer("seq").notNull(),
    name: text("name"),
    /** `{ data }` or `{ error }`, exactly as sent back to the SDK. */
    result: jsonb("result").$type<{ data: unknown } | { error: JobError }>().notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.stepId] })],
);

export type JobQueueKind = "call" | "wake";

/**
 * The leased work queue: each row is one call to make to the serve route ("call": `stepId` is
 * "step" for discovery or the hash of a planned step) or one sleep to end ("wake"). A worker
 * leases a row; a row whose lease ran out (its worker died) is leased again.
 */
export const jobQueue = pgTable(
  "job_queue",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    runId: text("run_id")
      .notNull()
      .references(() => jobRuns.id, { onDelete: "cascade" }),
    kind: text("kind").$type<JobQueueKind>().notNull(),
    stepId: text("step_id").notNull(),
    /** The step's display name, when known (planned steps and sleeps). */
    name: text("name"),
    attempt: integer("attempt").notNull().default(0),
    /** Not before (application clock, so the test clock moves sleeps and backoffs too). */
    availableAt: ts("available_at").notNull(),
    /** A token per lease: the worker that holds it is the only one that may settle the row. */
    leaseToken: text("lease_token"),
    /** Database clock: leases must agree across nodes whatever the test clock says. */
    leaseUntil: ts("lease_until"),
    ckey1: text("ckey1"),
    climit1: integer("climit1"),
    ckey2: text("ckey2"),
    climit2: integer("climit2"),
  },
  (t) => [
    index("job_queue_available_idx").on(t.availableAt, t.id),
    index("job_queue_run_idx").on(t.runId),
    index("job_queue_ckey1_idx").on(t.ckey1).where(sql`${t.leaseUntil} is not null`),
    index("job_queue_ckey2_idx").on(t.ckey2).where(sql`${t.leaseUntil} is not null`),
  ],
);

/** One row per call to the serve route: the run's history for the admin view and debugging. */
export const jobCalls = pgTable(
  "job_calls",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    runId: text("run_id")
      .notNull()
      .references(() => jobRuns.id, { onDelete: "cascade" }),
    stepId: text("step_id").notNull(),
    attempt: integer("attempt").notNull(),
    /** HTTP status, 0 when the call itself failed (connection refused, …). */
    status: integer("status").notNull(),
    /** What the executor made of the answer: step, planned, sleep, retry, completed, failed, lease-lost. */
    outcome: text("outcome").notNull(),
    error: text("error"),
    startedAt: ts("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
  },
  (t) => [index("job_calls_run_idx").on(t.runId, t.id)],
);

export type JobRun = typeof jobRuns.$inferSelect;
export type JobQueueItem = typeof jobQueue.$inferSelect;
export type JobFunction = typeof jobFunctions.$inferSelect;
