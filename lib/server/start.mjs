// @ts-check
/**
 * `npm start`: Easel's HTTP server (lib/server/http-server.mjs) with Next.js in this process.
 *
 *   node lib/server/start.mjs [-p PORT] [-H HOST]      PORT defaults to $PORT, then 3000
 *
 * With EASEL_WORKERS above 1 (the default on PostgreSQL: one per core) this process becomes the
 * primary of that many workers on the same port, each running this file again as a server
 * (lib/server/cluster).
 *
 * Next.js runs instrumentation.ts's register() here as it starts: that opens the database, starts
 * the job executor and publishes the direct routes on a global symbol (this file is plain Node.js
 * and cannot import the app's TypeScript, which Next.js has bundled).
 */
import cluster from "node:cluster";
import path from "node:path";
import { fileURLToPath } from "node:url";
import next from "next";
import { log } from "../log/logger.mjs";
import { runPrimary } from "./cluster/primary.mjs";
import { workersFromEnv } from "./cluster/setting.mjs";
import { clusterWorker } from "./cluster/worker.mjs";
import { createEaselServer } from "./http-server.mjs";
import { raiseOpenFileLimit } from "./open-file-limit.mjs";

/** @param {string[]} argv */
function options(argv) {
  /** @type {{ port: number, hostname: string | undefined }} */
  const opts = { port: Number(process.env.PORT || 3000), hostname: undefined };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split("=", 2);
    const value = () => inline ?? argv[++i];
    if (flag === "-p" || flag === "--port") opts.port = Number(value());
    else if (flag === "-H" || flag === "--hostname") opts.hostname = value();
    else throw new Error(`unknown option ${argv[i]} (usage: start.mjs [-p PORT] [-H HOST])`);
  }
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) throw new Error(`invalid port: ${opts.port}`);
  return opts;
}

/** Where instrumentation publishes the app's own shutdown (lib/server/shutdown.ts): stop jobs, close the database. */
const SHUTDOWN = Symbol.for("easel.shutdown");

/** EASEL_SHUTDOWN_TIMEOUT_S in ms (default 25 s): how long requests and job steps in flight get to finish. */
function shutdownTimeoutMs(value = process.env.EASEL_SHUTDOWN_TIMEOUT_S) {
  if (value === undefined || value === "") return 25_000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`EASEL_SHUTDOWN_TIMEOUT_S must be a positive number of seconds, got "${value}"`);
  return Math.round(seconds * 1000);
}

async function main() {
  log(); // made now: a wrong EASEL_LOG_LEVEL or EASEL_LOG_FORMAT stops the start here, with its reason
  const { port, hostname } = options(process.argv.slice(2));
  const graceMs = shutdownTimeoutMs();
  // Every held upload costs a socket and a file (and a cluster's primary passes on every socket):
  // the soft limit is raised before the first connection is accepted.
  raiseOpenFileLimit();
  if (cluster.isPrimary) {
    const count = workersFromEnv();
    if (count > 1) return runPrimary({ count, graceMs });
  }
  const worker = clusterWorker();
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const app = next({ dev: false, dir, hostname: hostname ?? "localhost", port });
  // The server listens before Next.js has prepared: /healthz answers at once, /readyz says 503
  // until the app has booted, and every other request waits for Next.js.
  const prepared = app.prepare().then(() => app.getRequestHandler());
  prepared.catch((err) => {
    log().fatal({ err }, "cannot start: Next.js did not prepare");
    process.exit(1);
  });
  const server = createEaselServer(
    async (req, res) => (await prepared)(req, res),
    worker ? { forwardStorage: worker.forwardStorage, metricsSource: worker.metricsSource } : {},
  );
  server.on("error", (err) => {
    log().fatal({ err, host: hostname ?? "*", port }, "cannot listen");
    process.exit(1);
  });
  const url = `http://${hostname ?? "localhost"}:${port}`;
  server.listen(port, hostname, () => log().info({ url }, "listening"));
  await prepared;
  await worker?.ready();
  log().info({ url }, "ready");

  // Stop taking connections, let requests in flight finish (within the grace period), stop the
  // jobs (steps in flight finish or give their lease back) and close the database, then exit 0.
  let stopping = false;
  /** @param {NodeJS.Signals} signal */
  const stop = async (signal) => {
    if (stopping) return;
    stopping = true;
    const deadline = Date.now() + graceMs;
    log().info({ signal, grace_s: graceMs / 1000 }, "stopping");
    const drained = Promise.all([new Promise((resolve) => server.close(() => resolve(true))), worker?.closePrivate()]);
    server.closeIdleConnections();
    const idle = setInterval(() => server.closeIdleConnections(), 250);
    const inTime = await Promise.race([drained, new Promise((r) => setTimeout(() => r(false), graceMs).unref())]);
    clearInterval(idle);
    if (!inTime) {
      log().warn({ grace_s: graceMs / 1000 }, "requests still in flight after the grace period: their connections are closed");
      server.closeAllConnections();
    }
    /** @type {((deadlineMs: number) => Promise<void>) | undefined} */
    const shutdownApp = /** @type {any} */ (globalThis)[SHUTDOWN];
    let code = 0;
    try {
      await shutdownApp?.(Math.max(1_000, deadline - Date.now()));
      await app.close();
    } catch (err) {
      log().error({ err }, "shutdown did not complete");
      code = 1;
    }
    process.exit(code);
  };
  process.on("SIGINT", (s) => void stop(s));
  process.on("SIGTERM", (s) => void stop(s));
}

main().catch((err) => {
  try {
    log().fatal({ err }, "cannot start");
  } catch {
    // No logger to be had: its own settings (EASEL_LOG_LEVEL, EASEL_LOG_FORMAT) are what is wrong.
    process.stderr.write(`easel: cannot start: ${err instanceof Error ? err.message : err}\n`);
  }
  process.exit(1);
});
