import { env } from "../env";

/**
 * "inngest": a real Inngest server (Inngest Cloud or self-hosted `inngest start`) runs the jobs;
 * the SDK reads INNGEST_* itself and this app never runs an executor.
 * "embedded": none of them is set; Easel's own executor (lib/jobs/executor) runs the jobs.
 */
export type JobsMode = "inngest" | "embedded";

export function jobsMode(): JobsMode {
  const e = env();
  return e.INNGEST_EVENT_KEY || e.INNGEST_SIGNING_KEY || e.INNGEST_BASE_URL || e.INNGEST_DEV ? "inngest" : "embedded";
}

