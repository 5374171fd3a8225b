import type { JobError } from "../../db/schema/jobs";

/**
 * The executor's side of the SDK call protocol (SDK spec §4.4 and §5), reduced to what Easel's
 * functions use. Pure: turning a run's state into a call body, and an answer into an outcome.
 */

/** One op of a 206 answer. A `Sleep` carries its duration in `name`; `StepRun` its result in `data`. */
export type Op = {
  id: string;
  op: string;
  name?: string;
  displayName?: string;
  data?: unknown;
  error?: unknown;
  opts?: Record<string, unknown>;
};

export type CallAnswer = { status: number; headers: Record<string, string>; body: string };

export type Outcome =
  | { kind: "ops"; ops: Op[]; retryAfterMs?: number }
  /** `steps`: results that came in the same answer as the run's end, to memoize with it (`StepRun` ops). */
  | { kind: "completed"; output: unknown; steps?: Op[] }
  | { kind: "error"; retriable: boolean; error: JobError; retryAfterMs?: number };

export type MemoizedStep = { stepId: string; result: { data: unknown } | { error: JobError } };

/** What the SDK needs to checkpoint: the function and the queue item (`qi_id`) a checkpoint is for. */
export type CheckpointTarget = { fnId: string; queueItemId: string };

/**
 * The POST body of a call (§4.4.1). With `checkpoint` the body carries `ctx.fn_id` and
 * `ctx.qi_id`, as an Inngest server's calls do: the SDK then runs a discovery call's steps one
 * after another in the same call, posting each result to the checkpoint API
 * (`POST /v1/checkpoint/:runId/async`) before going on, and answers the run's end as a
 * `RunComplete` op (SDK v4 "async checkpointing").
 */
export function callBody(input: {
  runId: string;
  event: Record<string, unknown>;
  steps: MemoizedStep[];
  attempt: number;
  maxAttempts: number;
  disableImmediateExecution: boolean;
  requestVersion: number | null;
  checkpoint?: CheckpointTarget;
}) {
  const steps: Record<string, unknown> = {};
  for (const s of input.steps) steps[s.stepId] = s.result;
  const stack = input.steps.map((s) => s.stepId);
  return {
    event: input.event,
    events: [input.event],
    steps,
    ...(input.requestVersion === null ? {} : { version: input.requestVersion }),
    ctx: {
      run_id: input.runId,
      attempt: input.attempt,
      // Without it the SDK never treats an attempt as the last, so a failing step never becomes StepFailed.
      max_attempts: input.maxAttempts,
      disable_immediate_execution: input.disableImmediateExecution,
      use_api: false,
      stack: { stack, current: stack.length },
      ...(input.checkpoint ? { fn_id: input.checkpoint.fnId, qi_id: input.checkpoint.queueItemId } : {}),
    },
  };
}

/** The op a checkpointing SDK ends a run with, the output in `data` (its id, the SHA-1 of "complete", means nothing here). */
export const RUN_COMPLETE = "RunComplete";

/**
 * A 206 whose ops end the run: `RunComplete` carries the function's output in `data`; step
 * results buffered before it (`StepRun`) are memoized with the end. Null when the ops do not end
 * the run; an error when they mix the end with anything but step results.
 */
function runCompletion(ops: Op[]): Outcome | null {
  const end = ops.find((o) => o.op === RUN_COMPLETE);
  if (!end) return null;
  const steps = ops.filter((o) => o !== end);
  if (steps.some((o) => o.op !== "StepRun")) {
    return { kind: "error", retriable: true, error: { name: "ProtocolError", message: `RunComplete answered with ${steps.map((o) => o.op).join(", ")}` } };
  }
  return { kind: "completed", output: end.data ?? null, ...(steps.length ? { steps } : {}) };
}

export function toJobError(value: unknown, fallback: string): JobError {
  if (value && typeof value === "object") {
    const v = value as Record<string, unknown>;
    const message = typeof v.message === "string" ? v.message : typeof v.error === "string" ? v.error : fallback;
    return {
      name: typeof v.name === "string" && v.name ? v.name : "Error",
      message,
      ...(typeof v.stack === "string" ? { stack: v.stack } : {}),
    };
  }
  return { name: "Error", message: typeof value === "string" && value ? value.slice(0, 2000) : fallback };
}

/** `Retry-After` (§4.1.1): seconds, or a date (RFC 3339 or HTTP-date). */
export function retryAfterMs(header: string | undefined, nowMs: number): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/**
 * 206 → ops; 200 → done; an error answer → retry unless the SDK says not to (400 or
 * `x-inngest-no-retry: true`, e.g. NonRetriableError or an unhandled memoized step error).
 * Anything else (401, 404, 5xx from the server, status 0 for a failed connection) is retried.
 */
export function interpretAnswer(answer: CallAnswer, nowMs: number): Outcome {
  const retryAfter = retryAfterMs(answer.headers["retry-after"], nowMs);
  if (answer.status === 206) {
    const ops = parseJson(answer.body);
    if (Array.isArray(ops) && ops.every((o) => o && typeof o.id === "string" && typeof o.op === "string")) {
      return runCompletion(ops as Op[]) ?? { kind: "ops", ops: ops as Op[], retryAfterMs: retryAfter };
    }
    return { kind: "error", retriable: true, error: { name: "ProtocolError", message: "206 answer without a list of ops" } };
  }
  if (answer.status === 200) return { kind: "completed", output: answer.body === "" ? null : parseJson(answer.body) };
  const noRetry = answer.headers["x-inngest-no-retry"] === "true" || (answer.status === 400 && answer.headers["x-inngest-no-retry"] !== "false");
  const fallback = answer.status === 0 ? "The serve route could not be reached" : `The serve route answered ${answer.status}`;
  return { kind: "error", retriable: !noRetry, error: toJobError(parseJson(answer.body), fallback), retryAfterMs: retryAfter };
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A time string (§1.3.2, "1h30m", "2.5s") in ms, or null when it is not one. */
export function timeStringMs(value: string): number | null {
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d|w)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    total += Number(m[1]) * UNIT_MS[m[2]];
    matched = re.lastIndex;
  }
  return matched > 0 && matched === value.length ? total : null;
}

/** When a `Sleep` op ends: its duration (a time string) or its end (a date, for sleepUntil). */
export function sleepUntil(op: Op, now: Date): Date {
  const raw = typeof op.opts?.duration === "string" ? op.opts.duration : (op.name ?? "");
  const ms = timeStringMs(raw);
  if (ms !== null) return new Date(now.getTime() + ms);
  const at = Date.parse(raw);
  if (!Number.isNaN(at)) return new Date(at);
  throw new Error(`Cannot read the duration of sleep "${op.displayName ?? op.id}": ${JSON.stringify(raw)}`);
}
