import { eq } from "drizzle-orm";
import { serve } from "inngest/next";
import { afterAll, beforeAll, expect, it } from "vitest";
import { jobRuns } from "../../lib/db/schema/jobs";
import { setDeps } from "../../lib/deps";
import { inngest, useSigningKey } from "../../lib/jobs/client";
import { Executor, inProcessTransport, signingKeyFromSecret } from "../../lib/jobs/executor";
import { inngestJobSender } from "../../lib/jobs/send";
import { captureLogs } from "../../lib/log/capture";
import { log, withLogContext } from "../../lib/log/logger.mjs";
import { getSecret } from "../../lib/secrets";
import { useTestDeps } from "../helpers/deps";
import { waitFor } from "./helpers";

/**
 * Every line logged while a job function runs carries the run's id and the function's, wherever
 * it is logged from: the function body (replayed on each call), its steps, code they call after
 * an await, and the SDK's own logger. Driven by the embedded executor, in-process, through Easel's
 * own Inngest client (lib/jobs/client.ts), as in production.
 */
const probe = inngest.createFunction({ id: "log-context-probe", retries: 1, triggers: [{ event: "test/log-context" }] }, async ({ event, step, logger }) => {
  log().info({ probe: event.data.n }, "probe body");
  const first = await step.run("first", async () => {
    await new Promise((r) => setTimeout(r, 5));
    log().info("probe step one");
    return 1;
  });
  await step.run("second", async () => {
    await Promise.resolve();
    log().warn({ first }, "probe step two");
    logger.info("probe sdk logger");
  });
  return "done";
});

let logs: ReturnType<typeof captureLogs>;
let executor: Executor;
let deps: Awaited<ReturnType<typeof useTestDeps>>;

beforeAll(async () => {
  deps = await useTestDeps({ isolated: true });
  setDeps({ ...deps, jobs: inngestJobSender() });
  await useSigningKey(inngest, deps.db);
  const handlers = serve({ client: inngest, functions: [probe], enableUnauthedSync: false });
  executor = new Executor({
    db: deps.db,
    clock: deps.clock,
    signingKey: signingKeyFromSecret(await getSecret(deps.db, "jobs_signing_key")),
    serveUrl: "http://127.0.0.1:3999/api/inngest",
    transport: inProcessTransport(handlers),
    pollMs: 50,
    leaseMs: 30_000,
    backoffMs: () => 50,
  });
  await executor.sync();
  logs = captureLogs();
  executor.start();
});

afterAll(async () => {
  await executor?.stop(5_000);
  logs?.restore();
});

it("lines logged by a run carry its run_id and function, from the body, its steps and the SDK's logger; other lines do not", async () => {
  // Sent from inside a request's context: the run's lines carry the run's fields, not the request's.
  await withLogContext({ request_id: "req-sends-the-event" }, () => inngest.send({ name: "test/log-context", data: { n: 1 } }));
  await inngest.send({ name: "test/log-context", data: { n: 2 } });
  const runs = await waitFor(async () => {
    const rows = await deps.db.select().from(jobRuns).where(eq(jobRuns.functionId, "easel-log-context-probe"));
    return rows.length === 2 && rows.every((r) => r.status === "completed") && rows;
  });
  const lines = logs.lines().filter((l) => l.msg.startsWith("probe "));
  for (const run of runs) {
    const own = lines.filter((l) => l.run_id === run.id);
    expect(new Set(own.map((l) => l.msg))).toEqual(new Set(["probe body", "probe step one", "probe step two", "probe sdk logger"]));
    for (const line of own) expect(line.function).toBe("easel-log-context-probe");
  }
  // Nothing the probe logged is without them, and no line of a run carries the sender's request.
  expect(lines.filter((l) => !l.run_id || !l.function)).toEqual([]);
  expect(lines.filter((l) => l.request_id)).toEqual([]);
  expect(lines.find((l) => l.msg === "probe sdk logger")).toMatchObject({ component: "inngest", level: "info" });
});
