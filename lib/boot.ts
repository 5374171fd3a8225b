import { serverDb } from "./db";
import { protectDataDirAtStart } from "./db/embedded/private-data-dir";
import { env } from "./env";
import { originSettingsWarning } from "./http/request-origin";
import { jobsMode } from "./jobs/mode";
import { markExecutorRunning } from "./jobs/readiness";
import { log } from "./log/logger.mjs";
import { checkMediaTools } from "./media/ffmpeg";
import { onShutdown } from "./server/shutdown";

/**
 * Server start-up: open the database (applying migrations; on the embedded default this also takes
 * ownership of the data dir and serves it on a socket for the CLI). A second server on the same
 * embedded data dir fails here with a clear message and the process exits, as does a configured
 * ffmpeg or ffprobe that is missing or does not run.
 */
export async function boot() {
  const originWarning = originSettingsWarning(env());
  if (originWarning) log().warn({ component: "http" }, originWarning);
  await protectDataDir();
  try {
    const { driver } = await serverDb();
    log().info({ driver }, "database ready");
  } catch (err) {
    log().fatal({ err }, "cannot start: the database did not open");
    process.exit(1);
  }
  await checkMediaTools().catch((err: unknown) => {
    // A configured EASEL_FFMPEG_PATH / EASEL_FFPROBE_PATH that is wrong: the operator asked for it, so no fallback.
    log().fatal({ err }, `cannot start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
  await startJobs();
  await startOutboxRelay();
}

/** A data dir of another user stops the start (lib/db/embedded/private-data-dir.ts). */
async function protectDataDir() {
  try {
    await protectDataDirAtStart(env().dataDir);
  } catch (err) {
    log().fatal({ err, dir: env().dataDir }, `cannot start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}

/**
 * The outbox relay (lib/jobs/outbox) on every node, whoever runs the jobs: it hands on the events
 * that writes stored and could not hand on themselves (the process died after the commit, or the
 * job system was unreachable). Its first round runs at once, so a restart sends what a killed
 * process left. It stops with the server (lib/server/shutdown.ts); what is left waits in the database.
 */
async function startOutboxRelay() {
  const [{ startOutboxRelay: start }, { getDeps }] = await Promise.all([import("./jobs/outbox"), import("./deps")]);
  const relay = start({ deps: getDeps });
  onShutdown("the outbox relay", (graceMs) => relay.stop(graceMs));
}

/**
 * The embedded job executor, unless a real Inngest server runs the jobs (INNGEST_* set) or this
 * node is told not to. It calls the handlers of /api/inngest in-process. When the server stops it stops
 * leasing work and lets calls in flight finish within the grace period; calls cut short run again.
 */
async function startJobs() {
  if (jobsMode() === "inngest") return log().info({ component: "jobs" }, "jobs run on the Inngest server (INNGEST_* set)");
  if (env().EASEL_JOBS_DISABLED) return log().info({ component: "jobs" }, "no job executor on this node (EASEL_JOBS_DISABLED)");
  try {
    const { db, driver } = await serverDb();
    const [{ startEmbeddedExecutor }, { serveJobs }] = await Promise.all([import("./jobs/executor"), import("./jobs/serve")]);
    const executor = await startEmbeddedExecutor(db, { exclusive: driver === "pglite", handlers: serveJobs() });
    markExecutorRunning(true);
    onShutdown("the job executor", async (graceMs) => {
      markExecutorRunning(false);
      await executor.stop(graceMs);
    });
  } catch (err) {
    // The node serves requests all the same; jobs wait in the database for a node whose executor runs.
    log().error({ component: "jobs", err }, "the embedded job executor did not start; jobs wait until one runs");
  }
}
