// @ts-check
/**
 * Easel's Prometheus metrics (docs/operations.md, "Metrics"): one prom-client registry for the
 * whole process, served at `GET /metrics` by Easel's HTTP server (lib/server/http-server.mjs).
 *
 * Plain JavaScript because both sides of the process record into it: the node:http server (not
 * bundled: HTTP requests) and the app that Next.js bundles (job runs, webhook deliveries, upload
 * bytes, the job queue's depth). The bundle may hold a module instance of its own of this file, so
 * the registry and its metrics live on a global symbol: whichever instance comes first makes them,
 * every other one finds them.
 *
 * Every label takes its values from a bounded set (route templates, a fixed list of methods, status
 * codes, function ids, outcome names): a label fed from request data would grow without limit.
 */
import client from "prom-client";
import { log } from "../log/logger.mjs";

/** Methods counted under their own name; any other is counted as "other". */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * Request durations in seconds. From 5 ms (an API read) to a minute; an upload part on a slow link
 * can take far longer, and lands in +Inf.
 */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** How long a scrape waits for the job queue's depth before leaving that gauge out. */
export const QUEUE_DEPTH_TIMEOUT_MS = 1_000;

/** @typedef {{ due: number, scheduled: number, leased: number }} QueueDepth */
/** @typedef {{ inc: (n?: number) => void }} CounterChild */
/** @typedef {{ observe: (v: number) => void }} HistogramChild */

/**
 * @typedef {object} MetricsState
 * @property {client.Registry} registry
 * @property {client.Counter<"method" | "route" | "status">} httpRequests
 * @property {client.Histogram<"method" | "route" | "status">} httpDuration
 * @property {client.Counter<"function" | "outcome">} jobRuns
 * @property {client.Counter<"outcome">} webhookDeliveries
 * @property {client.Counter<string>} uploadBytes
 * @property {(() => Promise<QueueDepth>) | undefined} queueDepth the executor's, once it runs on this node
 * @property {boolean} processMetrics whether collectDefaultMetrics ran
 * @property {Map<string, Map<string, Map<number, [CounterChild, HistogramChild]>>>} requestSeries
 *   route → method → status → the series of both request metrics: found again without building
 *   a label object or key string per request
 */

const KEY = Symbol.for("easel.metrics");

/** @returns {MetricsState} */
function create() {
  const registry = new client.Registry();
  const registers = [registry];
  /** @type {MetricsState} */
  const state = {
    registry,
    httpRequests: new client.Counter({
      name: "easel_http_requests_total",
      help: "HTTP requests answered, by method, route template and status code.",
      labelNames: ["method", "route", "status"],
      registers,
    }),
    httpDuration: new client.Histogram({
      name: "easel_http_request_duration_seconds",
      help: "Time from a request's arrival to the end of its response, by method, route template and status code.",
      labelNames: ["method", "route", "status"],
      buckets: DURATION_BUCKETS,
      registers,
    }),
    jobRuns: new client.Counter({
      name: "easel_job_runs_total",
      help: "Job runs that ended on this node, by function id and outcome (completed, failed).",
      labelNames: ["function", "outcome"],
      registers,
    }),
    webhookDeliveries: new client.Counter({
      name: "easel_webhook_deliveries_total",
      help: "Webhook delivery attempts by outcome: delivered (2xx), failed (to be retried or given up), gone (410: trigger disabled), skipped (trigger no longer live, nothing sent).",
      labelNames: ["outcome"],
      registers,
    }),
    uploadBytes: new client.Counter({
      name: "easel_upload_bytes_received_total",
      help: "Bytes of upload bodies received in full by the embedded object store (S3 PutObject and UploadPart, GCS uploads).",
      registers,
    }),
    queueDepth: undefined,
    processMetrics: false,
    requestSeries: new Map(),
  };
  new client.Gauge({
    name: "easel_job_queue_depth",
    help: "Items in the job queue at scrape time: due (waiting for a worker), scheduled (a retry or sleep not yet due), leased (a call in flight). Absent when this node runs no executor or the count did not answer in time.",
    labelNames: ["state"],
    registers,
    async collect() {
      this.reset();
      const source = state.queueDepth;
      if (!source) return;
      try {
        const depth = await within(QUEUE_DEPTH_TIMEOUT_MS, source());
        this.set({ state: "due" }, depth.due);
        this.set({ state: "scheduled" }, depth.scheduled);
        this.set({ state: "leased" }, depth.leased);
      } catch (err) {
        // Left out rather than stale: an alert on absent() sees it; the scrape itself still answers.
        log().warn({ err }, "metrics: the job queue depth was not collected");
      }
    },
  });
  return state;
}

/**
 * @template T
 * @param {number} ms @param {Promise<T>} work
 * @returns {Promise<T>}
 */
function within(ms, work) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return /** @type {Promise<T>} */ (Promise.race([work, late]).finally(() => clearTimeout(timer)));
}

/** The process's metrics (made on first use). */
export function metrics() {
  const g = /** @type {{ [KEY]?: MetricsState }} */ (/** @type {unknown} */ (globalThis));
  return (g[KEY] ??= create());
}

/** The process's own metrics (CPU, memory, event loop, GC: prom-client's defaults), started once. */
export function collectProcessMetrics() {
  const state = metrics();
  if (state.processMetrics) return;
  state.processMetrics = true;
  // Unprefixed (process_*, nodejs_*): the names every Node.js dashboard and alert already uses.
  client.collectDefaultMetrics({ register: state.registry });
}

/**
 * One answered request. `route` is a template (lib/metrics/routes.mjs), never a raw path.
 * @param {string | undefined} method @param {string} route @param {number} status @param {number} seconds
 */
export function recordRequest(method, route, status, seconds) {
  const state = metrics();
  const m = method !== undefined && METHODS.has(method) ? method : "other";
  let byMethod = state.requestSeries.get(route);
  if (!byMethod) state.requestSeries.set(route, (byMethod = new Map()));
  let byStatus = byMethod.get(m);
  if (!byStatus) byMethod.set(m, (byStatus = new Map()));
  let series = byStatus.get(status);
  if (!series) {
    const labels = /** @type {const} */ ([m, route, String(status)]);
    series = [state.httpRequests.labels(...labels), state.httpDuration.labels(...labels)];
    byStatus.set(status, series);
  }
  series[0].inc();
  series[1].observe(seconds);
}

/**
 * A job run that ended.
 * @param {string} functionId @param {"completed" | "failed"} outcome
 */
export function countJobRun(functionId, outcome) {
  metrics().jobRuns.inc({ function: functionId, outcome });
}

/**
 * One webhook delivery attempt (or a skipped one).
 * @param {"delivered" | "failed" | "gone" | "skipped"} outcome
 */
export function countWebhookDelivery(outcome) {
  metrics().webhookDeliveries.inc({ outcome });
}

/** @param {number} bytes of an upload body received in full */
export function countUploadBytes(bytes) {
  if (bytes > 0) metrics().uploadBytes.inc(bytes);
}

/**
 * Where the job queue's depth comes from (the embedded executor's store); undefined when this node
 * runs no executor.
 * @param {(() => Promise<QueueDepth>) | undefined} source
 */
export function setQueueDepthSource(source) {
  metrics().queueDepth = source;
}

/** The registry in the Prometheus text format. */
export async function renderMetrics() {
  const { registry } = metrics();
  return { contentType: registry.contentType, body: await registry.metrics() };
}
