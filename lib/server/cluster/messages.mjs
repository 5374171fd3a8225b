// @ts-check
/** The IPC messages between the primary and its workers (EASEL_WORKERS). */
export const MESSAGES = Object.freeze({
  /** worker → primary: the app has booted and (the owner) listens for forwarded requests. */
  ready: "easel:ready",
  /** primary → worker: the owner died; this worker now serves the object store and runs the executor. */
  becomeOwner: "easel:become-owner",
  /** worker → primary: a /metrics scrape; primary → worker: its answer. */
  metricsAsk: "easel:metrics-ask",
  metricsAnswer: "easel:metrics-answer",
  /** worker → primary → owner: an event was stored, wake the executor (app-hooks.ts has the same name). */
  jobsWake: "easel:jobs-wake",
});
