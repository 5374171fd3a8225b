import { sql, type SQL } from "drizzle-orm";
import type { JobRun, JobRunStatus } from "../../../db/schema/jobs";
import type { MemoizedStep } from "../protocol";

/** What of a run a call needs. */
export type RunHead = Pick<JobRun, "id" | "functionId" | "status" | "disableImmediateExecution" | "requestVersion">;

export type CallState = {
  run: RunHead;
  event: Record<string, unknown>;
  steps: MemoizedStep[];
};

/** The columns of a run, its event and its memoized steps as raw SQL answers them (both drivers). */
export type CallStateRow = {
  status: JobRunStatus;
  function_id: string;
  disable_immediate_execution: boolean;
  request_version: number | null;
  event: Record<string, unknown> | string;
  steps: MemoizedStep[] | string;
};

/** A run's memoized steps in completion order, as one JSON array (`[]` when none): `runId` is an SQL expression. */
export const memoizedStepsOf = (runId: SQL) =>
  sql`(select coalesce(json_agg(json_build_object('stepId', s.step_id, 'result', s.result) order by s.seq), '[]'::json)
    from job_steps s where s.run_id = ${runId})`;

const json = <T>(v: T | string): T => (typeof v === "string" ? (JSON.parse(v) as T) : v);

export function parseCallState(row: CallStateRow, runId: string): CallState {
  return {
    run: {
      id: runId,
      functionId: row.function_id,
      status: row.status,
      disableImmediateExecution: row.disable_immediate_execution,
      requestVersion: row.request_version === null ? null : Number(row.request_version),
    },
    event: json(row.event),
    steps: json(row.steps),
  };
}
