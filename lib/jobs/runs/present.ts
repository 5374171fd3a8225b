import type { JobRun } from "../../db/schema/jobs";

/** A run as the admin view shows it. */
export function toRunJson(run: JobRun, eventName: string | null) {
  return {
    id: run.id,
    function_id: run.functionId,
    event_name: eventName,
    status: run.status,
    /** Attempt (0-based) of the latest call: how many times the current step has been retried. */
    attempt: run.attempt,
    calls: run.calls,
    last_error: run.lastError ? `${run.lastError.name}: ${run.lastError.message}` : null,
    error: run.error ?? null,
    output: run.output ?? null,
    created_at: run.createdAt.toISOString(),
    started_at: run.startedAt?.toISOString() ?? null,
    ended_at: run.endedAt?.toISOString() ?? null,
  };
}

