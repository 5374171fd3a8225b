/**
 * A process running the embedded executor against a serve route on a real HTTP server, for the
 * kill -9 test. Every step body appends a line to $HARNESS_LOG, so what ran survives the kill.
 *   HARNESS_DB   a PGlite data dir, or a postgres:// URL
 *   HARNESS_LOG  the step log
 *   HARNESS_SEND "1": send the test events after start (the first life only)
 */
import fs from "node:fs";
import { sql } from "drizzle-orm";
import { Inngest } from "inngest";
import { serve } from "inngest/next";
import { queryRows } from "../../../lib/db";
import { openDb } from "../../../lib/db/client";
import { jobsClientOptions } from "../../../lib/jobs/client";
import { Executor, httpTransport, signingKeyFromSecret } from "../../../lib/jobs/executor";
import { listRuns } from "../../../lib/jobs/runs";
import { serveOverHttp } from "../fixtures/http-server";

const target = process.env.HARNESS_DB!;
const logFile = process.env.HARNESS_LOG!;
const log = (line: string) => fs.appendFileSync(logFile, `${line}\n`);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const handle = target.startsWith("postgres") ? await openDb({ databaseUrl: target, dataDir: "", role: "server" }) : await openDb({ dataDir: target, role: "server" });
  const { db } = handle;
  const client = new Inngest({ id: "kill", ...jobsClientOptions(async () => ({ db, clock: () => new Date() })) });
  const signingKey = signingKeyFromSecret("kill-harness");
  client.setEnvVars({ INNGEST_SIGNING_KEY: signingKey });

  const slowSteps = client.createFunction({ id: "slow-steps", triggers: [{ event: "kill/slow" }] }, async ({ step }) => {
    await step.run("a", () => log("slow.a"));
    await step.run("slow", async () => {
      log("slow.slow:start");
      await pause(4000);
      log("slow.slow:end");
    });
    await step.run("c", () => log("slow.c"));
  });
  const sleepy = client.createFunction({ id: "sleepy", triggers: [{ event: "kill/sleepy" }] }, async ({ step }) => {
    await step.run("before", () => log("sleepy.before"));
    await step.sleep("nap", "6s");
    await step.run("after", () => log("sleepy.after"));
  });
  const handlers = serve({ client, functions: [slowSteps, sleepy], enableUnauthedSync: false });

  const server = await serveOverHttp(handlers);

  const executor = new Executor({
    db,
    clock: () => new Date(),
    signingKey,
    serveUrl: server.url,
    transport: httpTransport(),
    pollMs: 100,
    leaseMs: 2000,
    backoffMs: () => 100,
    reclaimLeasesOnStart: handle.driver === "pglite",
    log: { info: (m) => console.log(m), warn: (m) => console.warn(m), error: (m) => console.error(m) },
  });
  await executor.sync();
  executor.start();
  if (process.env.HARNESS_SEND === "1") await client.send([{ name: "kill/slow", data: {} }, { name: "kill/sleepy", data: {} }]);
  log("harness:ready");

  // What is memoized, as it becomes so: a step's body may have run without its result being
  // stored yet (kill -9 in between runs it again), so the test must know which steps finished.
  const memoized = new Set<string>();
  for (;;) {
    const steps = await queryRows<{ fn: string; name: string }>(db, sql`select r.function_id as fn, s.name from job_steps s join job_runs r on r.id = s.run_id`);
    for (const s of steps) {
      const key = `${s.fn}/${s.name}`;
      if (memoized.has(key)) continue;
      log(`memoized:${key}`);
      memoized.add(key);
    }
    const { runs } = await listRuns(db, {});
    if (runs.length === 2 && runs.every((r) => r.status === "completed" || r.status === "failed")) {
      log(`harness:done ${JSON.stringify(runs.map((r) => ({ fn: r.function_id, status: r.status })))}`);
      await executor.stop();
      await handle.close();
      process.exit(0);
    }
    await pause(100);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
