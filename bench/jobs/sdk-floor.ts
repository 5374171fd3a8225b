/**
 * bench/jobs/sdk-floor — what the Inngest SDK alone costs per no-op run, without the executor's
 * database: the run's one call (a one-step function, checkpointed as the executor calls it) and the
 * `send()` of its event, both answered in-process at once (the checkpoint and event API answer 200
 * without storing anything). Compare its figure with bench/jobs's CPU per run: the difference is
 * the executor's own share (statements, claims, settles, JSON).
 *   npx tsx bench/jobs/sdk-floor.ts            BENCH_RUNS=5000 BENCH_CONCURRENCY=16
 *   BENCH_CPU_PROF=<file>                      a CPU profile of the measured calls
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import { Inngest } from "inngest";
import { serve } from "inngest/next";
import { EMBEDDED_BASE_URL, inProcessTransport, keepEnvironmentInPlainObject, signingKeyFromSecret } from "../../lib/jobs/executor";
import { callBody } from "../../lib/jobs/executor/protocol";
import { signedBody } from "../../lib/jobs/executor/signing";

const RUNS = Number(process.env.BENCH_RUNS ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

const client = new Inngest({
  id: "floor",
  isDev: false,
  baseUrl: EMBEDDED_BASE_URL,
  eventKey: "floor",
  logger: quiet,
  // The embedded origin's answers, without a database: every checkpoint held, every event taken.
  fetch: (async (input: RequestInfo | URL) => {
    const url = String(input instanceof Request ? input.url : input);
    return url.includes("/e/") ? Response.json({ ids: ["x"], status: 200 }) : Response.json({}, { status: 200 });
  }) as typeof fetch,
});
const signingKey = signingKeyFromSecret("floor");
client.setEnvVars({ INNGEST_SIGNING_KEY: signingKey });
const fn = client.createFunction({ id: "noop", retries: 0, triggers: [{ event: "bench/noop" }] }, async ({ step }) => {
  await step.run("noop", () => null);
});
const transport = inProcessTransport(serve({ client, functions: [fn], enableUnauthedSync: false }));
keepEnvironmentInPlainObject();

let seq = 0;
async function oneCall() {
  const n = seq++;
  const { body, signature } = signedBody(
    callBody({
      runId: `RUN${n}`,
      event: { name: "bench/noop", data: { n }, id: `e${n}`, ts: Date.now() },
      steps: [],
      attempt: 0,
      maxAttempts: 1,
      disableImmediateExecution: false,
      requestVersion: null,
      checkpoint: { fnId: "floor-noop", queueItemId: `${n}:lease` },
    }),
    signingKey,
  );
  const answer = await transport({ method: "POST", url: "http://easel-jobs.internal/api/inngest?fnId=floor-noop&stepId=step", headers: { "content-type": "application/json", "x-inngest-signature": signature }, body });
  if (answer.status !== 206) throw new Error(`unexpected answer ${answer.status}: ${answer.body}`);
}

async function measure(label: string, runs: number, one: () => Promise<unknown>, profileTo?: string) {
  let session: Session | null = null;
  if (profileTo) {
    session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 200 });
    await session.post("Profiler.start");
  }
  let left = runs;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (left-- > 0) await one();
    }),
  );
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  if (session && profileTo) {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(profileTo, JSON.stringify(profile));
  }
  console.log(`${label.padEnd(34)} ${((cpu.user + cpu.system) / 1000 / runs).toFixed(3)} ms of CPU each, ${((runs / ms) * 1000).toFixed(0)}/s`);
}

async function main() {
  console.log(`bench/jobs/sdk-floor: ${RUNS} each, ${CONCURRENCY} in flight; load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  // Warm-up: the JIT, the SDK's lazy set-up.
  await measure("(warm-up) call", 500, oneCall);
  await measure("(warm-up) send", 500, () => client.send({ name: "bench/noop", data: { n: 0 } }));
  await measure("SDK: one checkpointed call", RUNS, oneCall, process.env.BENCH_CPU_PROF);
  await measure("SDK: send() of one event", RUNS, () => client.send({ name: "bench/noop", data: { n: 0 } }));
  console.log(`load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
