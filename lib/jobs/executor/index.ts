import { systemClock } from "../../clock";
import type { Db } from "../../db";
import { env } from "../../env";
import { setQueueDepthSource } from "../../metrics/registry.mjs";
import { getSecret } from "../../secrets";
import type { ServeHandlers } from "../serve";
import { Executor } from "./executor";
import { keepEnvironmentInPlainObject } from "./plain-env";
import { signingKeyFromSecret } from "./signing";
import { queueDepth } from "./store/queue";
import { inProcessTransport } from "./transport";

export { Executor, defaultBackoffMs, type ExecutorOptions } from "./executor";
export { EMBEDDED_BASE_URL, embeddedFetch } from "./event-api";
export { httpTransport, inProcessTransport, type Transport } from "./transport";
export { signingKeyFromSecret } from "./signing";
export { keepEnvironmentInPlainObject } from "./plain-env";

/** The serve URL the executor's requests carry: never resolved, the handlers are called directly. */
const EMBEDDED_SERVE_URL = "http://easel-jobs.internal/api/inngest";

/**
 * Calls in flight per node when EASEL_JOBS_CONCURRENCY is unset. On PostgreSQL calls run in
 * parallel sessions and webhook deliveries mostly wait on the network, so 16 (bench/jobs on 2
 * cores: 26.9 runs/s against 9.3 with 4); the embedded database runs one statement at a time,
 * where more calls in flight buy little. Encodes and processing keep their own lower limits.
 */
function defaultConcurrency(): number {
  return env().DATABASE_URL ? 16 : 4;
}

/**
 * The server's executor. It calls the serve handlers in-process: the same signed protocol requests
 * an Inngest server would send to /api/inngest, without a socket or a pass through the framework's
 * routing (which cost more CPU per call than the executor's own work), and without needing to know
 * the address this server is reachable at. `exclusive` when the process owns the embedded database
 * (no other node can hold a lease in it).
 */
export async function startEmbeddedExecutor(db: Db, opts: { exclusive: boolean; handlers: ServeHandlers }): Promise<Executor> {
  const signingKey = signingKeyFromSecret(await getSecret(db, "jobs_signing_key"));
  keepEnvironmentInPlainObject();
  const executor = new Executor({
    db,
    clock: systemClock,
    signingKey,
    serveUrl: EMBEDDED_SERVE_URL,
    transport: inProcessTransport(opts.handlers),
    concurrency: env().EASEL_JOBS_CONCURRENCY ?? defaultConcurrency(),
    reclaimLeasesOnStart: opts.exclusive,
  });
  executor.start();
  // /metrics reads the queue's depth from this node's database, on the executor's clock.
  setQueueDepthSource(() => queueDepth(db, systemClock()));
  return executor;
}
