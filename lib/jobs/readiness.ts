import { env } from "../env";
import { jobsMode } from "./mode";
import { pausedForMs } from "./outbox/state";

/**
 * The `jobs` check of /readyz. Jobs are ready when events can be handed on (the last hand-off of
 * the outbox did not fail; towards an Inngest server that is the server answering) and, where this
 * node runs the embedded executor, that executor is running.
 */
type State = { executorRunning: boolean };
const state: State = ((globalThis as { __easelJobsReadiness?: State }).__easelJobsReadiness ??= { executorRunning: false });

export function markExecutorRunning(running: boolean) {
  state.executorRunning = running;
}

export async function jobsReadiness(): Promise<void> {
  const paused = pausedForMs();
  if (paused > 0) throw new Error(`events could not be handed on; the next try is in ${paused} ms`);
  if (jobsMode() === "embedded" && !env().EASEL_JOBS_DISABLED && !state.executorRunning) throw new Error("the embedded job executor is not running");
}
