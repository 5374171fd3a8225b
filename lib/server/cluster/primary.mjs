// @ts-check
import cluster from "node:cluster";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import client from "prom-client";
import { log } from "../../log/logger.mjs";
import { MESSAGES } from "./messages.mjs";

/** A worker that lived this long before dying is restarted at once; one dying sooner waits longer each time. */
const STEADY_MS = 30_000;
const MAX_RESTART_DELAY_MS = 30_000;

/**
 * The primary of EASEL_WORKERS > 1: it forks `count` workers of this same entry (start.mjs), which
 * share its port (node:cluster hands each new connection to the next worker in turn), and serves
 * no request itself. Exactly one worker is the owner: it serves the embedded object store (the
 * others forward to it over a unix socket in a private folder) and runs the job executor (the
 * others start as EASEL_JOBS_DISABLED nodes).
 *
 * - A worker that dies is restarted and the death logged. When the owner dies, a running member
 *   becomes the owner at once (it starts the executor and the store's listener), and the
 *   replacement joins as a member. Only after the old owner's process has exited: two processes
 *   never serve the store at once.
 * - A worker that exits before it was ever ready is a failed start (a wrong setting, no
 *   database): everything stops and the primary exits 1, its reason in that worker's log.
 * - SIGTERM or SIGINT: forwarded to every worker, which drain as a single server does; the
 *   primary exits 0 when all have exited 0 (else 1), killing any still running after the grace
 *   period and 5 s more. If the primary is killed outright, node:cluster ends every worker with it.
 * - /metrics on any worker asks the primary, which gathers every worker's registry
 *   (prom-client's AggregatorRegistry) and answers with their sum.
 *
 * @param {{ count: number, graceMs: number }} opts
 */
export async function runPrimary({ count, graceMs }) {
  const logger = log().child({ component: "cluster" });
  const runtime = fs.mkdtempSync(path.join(os.tmpdir(), "easel-workers-"));
  fs.chmodSync(runtime, 0o700);
  const socketPath = path.join(runtime, "store.sock");
  const executorWanted = !["1", "true", "yes"].includes(process.env.EASEL_JOBS_DISABLED ?? "");
  const aggregator = new client.AggregatorRegistry();

  /** @type {Map<number, { role: "owner" | "member", startedAt: number, ready: boolean }>} */
  const workers = new Map();
  let everReady = false;
  let stopping = false;
  let quickDeaths = 0;

  /** @param {"owner" | "member"} role */
  const fork = (role) => {
    /** @type {Record<string, string>} */
    const env = { EASEL_CLUSTER_ROLE: role, EASEL_CLUSTER_SOCKET: socketPath, EASEL_CLUSTER_EXECUTOR: executorWanted ? "1" : "0" };
    // A member takes no part in the job queue; it still stores events, which wake the owner's executor.
    if (role === "member") env.EASEL_JOBS_DISABLED = "1";
    const worker = cluster.fork(env);
    workers.set(worker.id, { role, startedAt: Date.now(), ready: false });
    logger.info({ worker: worker.id, pid: worker.process.pid, role }, "worker started");
    return worker;
  };

  const ownerId = () => [...workers].find(([, w]) => w.role === "owner")?.[0];

  cluster.on("message", (worker, /** @type {any} */ message) => {
    const w = workers.get(worker.id);
    if (message?.type === MESSAGES.ready && w) {
      w.ready = true;
      if (!everReady && [...workers.values()].every((x) => x.ready)) {
        everReady = true;
        logger.info({ workers: workers.size, owner: ownerId() }, "all workers ready");
      }
    } else if (message?.type === MESSAGES.metricsAsk) {
      aggregator.clusterMetrics().then(
        (body) => worker.isConnected() && worker.send({ type: MESSAGES.metricsAnswer, id: message.id, body, contentType: aggregator.contentType }),
        (/** @type {Error} */ err) => {
          logger.error({ err }, "metrics: the workers' registries could not be gathered");
          if (worker.isConnected()) worker.send({ type: MESSAGES.metricsAnswer, id: message.id, error: err.message });
        },
      );
    } else if (message?.type === MESSAGES.jobsWake) {
      const owner = ownerId();
      const target = owner === undefined ? undefined : cluster.workers?.[owner];
      if (target?.isConnected()) target.send({ type: MESSAGES.jobsWake });
    }
  });

  cluster.on("exit", (worker, code, signal) => {
    const w = workers.get(worker.id);
    workers.delete(worker.id);
    if (stopping || !w) return;
    if (!w.ready && !everReady) {
      logger.fatal({ worker: worker.id, code, signal }, "a worker exited while starting: the server cannot start (that worker's log says why)");
      void stop("SIGTERM", 1);
      return;
    }
    const lived = Date.now() - w.startedAt;
    quickDeaths = lived < STEADY_MS ? quickDeaths + 1 : 0;
    const delay = quickDeaths <= 1 ? 0 : Math.min(MAX_RESTART_DELAY_MS, 500 * 2 ** (quickDeaths - 2));
    let replacementRole = /** @type {"owner" | "member"} */ ("member");
    if (w.role === "owner") {
      const heir = [...workers].find(([, x]) => x.role === "member" && x.ready);
      if (heir) {
        heir[1].role = "owner";
        cluster.workers?.[heir[0]]?.send({ type: MESSAGES.becomeOwner });
        logger.warn({ worker: worker.id, pid: worker.process.pid, code, signal, owner: heir[0] }, "the owner worker died: another worker takes the object store and the job executor; starting a replacement");
      } else {
        replacementRole = "owner";
        logger.warn({ worker: worker.id, pid: worker.process.pid, code, signal }, "the owner worker died and no other worker is ready: its replacement will be the owner");
      }
    } else {
      logger.warn({ worker: worker.id, pid: worker.process.pid, code, signal }, "a worker died; starting a replacement");
    }
    setTimeout(() => {
      if (!stopping) fork(replacementRole);
    }, delay).unref();
  });

  /** @param {NodeJS.Signals} signal @param {number} [exitCode] */
  const stop = async (signal, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workers: workers.size }, "stopping every worker");
    let code = exitCode;
    const all = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined);
    const exits = all.map(
      (w) =>
        new Promise((resolve) => {
          if (w.isDead()) return resolve(undefined);
          w.once("exit", (c, s) => {
            if (c !== 0 || s) code = code || 1;
            resolve(undefined);
          });
          w.process.kill("SIGTERM");
        }),
    );
    const inTime = await Promise.race([Promise.all(exits).then(() => true), new Promise((r) => setTimeout(() => r(false), graceMs + 5_000).unref())]);
    if (!inTime) {
      logger.error({ grace_s: graceMs / 1000 }, "workers still running after the grace period: killed");
      for (const w of all) if (!w.isDead()) w.process.kill("SIGKILL");
      code = 1;
    }
    fs.rmSync(runtime, { recursive: true, force: true });
    process.exit(code);
  };
  process.on("SIGINT", (s) => void stop(s));
  process.on("SIGTERM", (s) => void stop(s));

  logger.info({ workers: count, executor: executorWanted }, "starting workers");
  fork("owner");
  for (let i = 1; i < count; i++) fork("member");
}
