// @ts-check
import cluster from "node:cluster";
import { randomUUID } from "node:crypto";
import client from "prom-client";
import { createLogger, log, setLogger } from "../../log/logger.mjs";
import { metrics } from "../../metrics/registry.mjs";
import { CLIENT_ADDRESS_HEADER, DIRECT_ROUTES } from "../http-server.mjs";
import { storageForwarder } from "./forward.mjs";
import { MESSAGES } from "./messages.mjs";
import { listenForForwardedRequests } from "./owner-listener.mjs";

const STATE = Symbol.for("easel.cluster");
const TAKE_EXECUTOR = Symbol.for("easel.cluster.takeExecutor");

/** How long a worker waits for the primary's aggregated metrics (prom-client's own bound is 5 s). */
const METRICS_WAIT_MS = 6_000;

/**
 * The worker side of EASEL_WORKERS, or null when this process is not a worker of several (then
 * `npm start` is the single process it always was). The primary (primary.mjs) starts each worker
 * with its role in the environment: the "owner" serves the embedded object store and runs the job
 * executor; a "member" forwards `/storage/*` requests to the owner and runs no executor (it is
 * started with EASEL_JOBS_DISABLED=1). When the owner dies the primary makes a member the owner.
 */
export function clusterWorker() {
  if (!cluster.isWorker || !cluster.worker) return null;
  const id = cluster.worker.id;
  const socketPath = process.env.EASEL_CLUSTER_SOCKET;
  if (!socketPath) throw new Error("a cluster worker needs EASEL_CLUSTER_SOCKET (set by the primary)");
  // Every line this worker logs says which worker it is.
  setLogger(createLogger().child({ worker: id }));
  /** @type {{ role: "owner" | "member", executorWanted: boolean }} */
  const state = { role: process.env.EASEL_CLUSTER_ROLE === "owner" ? "owner" : "member", executorWanted: process.env.EASEL_CLUSTER_EXECUTOR === "1" };
  /** @type {any} */ (globalThis)[STATE] = state;

  // The primary's /metrics aggregation asks each worker for its registry (prom-client's protocol).
  new client.AggregatorRegistry();
  client.AggregatorRegistry.setRegistries([metrics().registry]);

  /** @type {Map<string, { resolve: (v: { contentType: string, body: string }) => void, reject: (e: Error) => void, timer: NodeJS.Timeout }>} */
  const scrapes = new Map();
  /** @type {import("node:http").Server | null} */
  let privateListener = null;
  let ready = false;

  /**
   * The app publishes the store's routes once it has booted (instrumentation: database open,
   * executor started): a worker is ready from then on, and the owner listens for forwarded
   * requests only then (until it does, forwarders answer 503 in the protocol's own format).
   */
  const booted = async () => {
    for (let waited = 0; !(/** @type {any} */ (globalThis)[DIRECT_ROUTES]); waited += 50) {
      if (waited === 60_000) log().warn({ component: "cluster" }, "the app has not finished booting after 60 s; still waiting");
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const becomeOwner = async () => {
    await booted();
    privateListener = await listenForForwardedRequests(socketPath);
    log().info({ component: "cluster", role: "owner" }, "this worker serves the embedded object store");
  };

  process.on("message", (/** @type {any} */ message) => {
    if (message?.type === MESSAGES.metricsAnswer) {
      const scrape = scrapes.get(message.id);
      if (!scrape) return;
      scrapes.delete(message.id);
      clearTimeout(scrape.timer);
      if (message.error) scrape.reject(new Error(message.error));
      else scrape.resolve({ contentType: message.contentType, body: message.body });
    } else if (message?.type === MESSAGES.becomeOwner && state.role !== "owner") {
      log().info({ component: "cluster" }, "the owner worker died: this worker takes over the object store and the job executor");
      state.role = "owner";
      becomeOwner().then(
        () => /** @type {(() => Promise<void>) | undefined} */ (/** @type {any} */ (globalThis)[TAKE_EXECUTOR])?.(),
        (err) => {
          // A worker that cannot serve the store must not stay its owner: the primary replaces it.
          log().fatal({ component: "cluster", err }, "could not listen for the object store's forwarded requests; exiting");
          process.exit(1);
        },
      );
    }
  });

  const forward = storageForwarder({ socketPath: () => socketPath, clientHeader: CLIENT_ADDRESS_HEADER });

  return {
    id,
    state,
    /** @type {(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse, path: string, id: string) => boolean} */
    forwardStorage(req, res, path, requestId) {
      if (state.role === "owner") return false;
      forward(req, res, path, requestId);
      return true;
    },
    /** /metrics of the whole deployment: the primary gathers every worker's registry and sums them. */
    metricsSource() {
      return /** @type {Promise<{ contentType: string, body: string }>} */ (
        new Promise((resolve, reject) => {
          const key = randomUUID();
          const timer = setTimeout(() => {
            scrapes.delete(key);
            reject(new Error(`the primary did not answer with the workers' metrics within ${METRICS_WAIT_MS} ms`));
          }, METRICS_WAIT_MS);
          scrapes.set(key, { resolve, reject, timer });
          process.send?.({ type: MESSAGES.metricsAsk, id: key });
        })
      );
    },
    /** Once the app has booted: the owner opens its private listener, then the primary is told (a worker that dies before is a failed start). */
    async ready() {
      await booted();
      if (state.role === "owner") await becomeOwner();
      ready = true;
      process.send?.({ type: MESSAGES.ready, role: state.role });
    },
    /** Stops taking forwarded requests; resolves when those in flight have ended. */
    closePrivate() {
      const server = privateListener;
      if (!server) return Promise.resolve();
      return new Promise((resolve) => {
        server.close(() => resolve(undefined));
        server.closeIdleConnections();
      });
    },
    get isReady() {
      return ready;
    },
  };
}
