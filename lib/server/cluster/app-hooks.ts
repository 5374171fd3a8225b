import { systemClock } from "../../clock";
import { serverDb } from "../../db";
import { notifyWork, onWork } from "../../jobs/executor/signal";
import { jobsMode } from "../../jobs/mode";
import { markExecutorRunning } from "../../jobs/readiness";
import { log } from "../../log/logger.mjs";
import { embeddedLayout } from "../../objectstore";
import { EMBEDDED_BUCKET } from "../../objectstore/identity";
import { onShutdown } from "../shutdown";
import { publishObjectOps } from "./embedded-objects";
import { MESSAGES } from "./messages.mjs";
import { clusterState } from "./role";

/**
 * The app's side of running as one of several workers (EASEL_WORKERS, lib/server/cluster): what
 * the plain server code of the worker (worker.mjs) cannot do itself because it lives in the
 * bundle. Published on globals, as the direct routes and the shutdown are.
 */

const TAKE_EXECUTOR = Symbol.for("easel.cluster.takeExecutor");

/**
 * Starts the embedded executor on a worker that became the owner after the last owner died. The
 * same start as boot's, which this worker skipped as a member (it was started with
 * EASEL_JOBS_DISABLED). On PostgreSQL several executors may share the queue, so the old owner's
 * runs it held are resumed here once their lease ends.
 */
async function takeExecutor(): Promise<void> {
  const state = clusterState();
  if (!state?.executorWanted || jobsMode() === "inngest") return;
  try {
    const { db } = await serverDb();
    const [{ startEmbeddedExecutor }, { serveJobs }] = await Promise.all([import("../../jobs/executor"), import("../../jobs/serve")]);
    const executor = await startEmbeddedExecutor(db, { exclusive: false, handlers: serveJobs() });
    markExecutorRunning(true);
    onShutdown("the job executor", async (graceMs) => {
      markExecutorRunning(false);
      await executor.stop(graceMs);
    });
    log().info({ component: "jobs" }, "this worker took over the job executor");
  } catch (err) {
    log().error({ component: "jobs", err }, "the embedded job executor did not start on the new owner; jobs wait until one runs");
  }
}

/**
 * Events stored on a member (an API write's outbox hand-off) wake the owner's executor at once
 * rather than at its next poll: the member's wake-up signal becomes one message to the primary,
 * which relays it to the owner (primary.mjs), where it wakes the executor as a local event would.
 * Wake-ups of one tick are sent as one message. Returns how to stop sending (tests).
 */
export function relayWakeUps(ipc: { send: (message: unknown) => void; onMessage: (listener: (message: { type?: string } | null) => void) => void }) {
  let queued = false;
  const stop = onWork(() => {
    if (clusterState()?.role !== "member" || queued) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      ipc.send({ type: MESSAGES.jobsWake });
    });
  });
  ipc.onMessage((message) => {
    if (message?.type === MESSAGES.jobsWake && clusterState()?.role === "owner") notifyWork();
  });
  return stop;
}

/** Called by instrumentation after boot: nothing to do unless this process is a worker of several. */
export function publishClusterHooks() {
  if (!clusterState()) return;
  (globalThis as { [TAKE_EXECUTOR]?: () => Promise<void> })[TAKE_EXECUTOR] = takeExecutor;
  publishObjectOps(embeddedLayout, EMBEDDED_BUCKET, systemClock);
  const send = process.send?.bind(process);
  if (send) relayWakeUps({ send: (message) => void send(message), onMessage: (listener) => void process.on("message", listener) });
}
