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

/** The server's own address, which the embedded executor calls (the serve route lives in this app). */
export function internalUrl(): string {
  const e = env();
  return e.EASEL_INTERNAL_URL ?? `http://127.0.0.1:${e.PORT ?? 3000}`;
}
