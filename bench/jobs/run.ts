/**
 * bench/jobs — the embedded executor's overhead: 1,000 no-op runs (one `step.run` each) sent as
 * fast as `send()` returns, against the same step bodies called directly in one process.
 *   npx tsx bench/jobs/run.ts                       PGlite in memory, calls in-process (as the server makes them)
 *   BENCH_DATABASE_URL=postgres://… npx tsx bench/jobs/run.ts
 *   BENCH_RUNS=1000 BENCH_CONCURRENCY=4 BENCH_TRANSPORT=inprocess|http
 * Per run it also counts the SQL statements the app issued (transactions add a BEGIN and a COMMIT
 * each, counted apart) and the calls the executor made to the serve route, over the burst.
 * Latency is from the start of `send()` to the start of the run's first step body: under load
 * (the burst of RUNS sends) and unloaded (BENCH_SEQUENTIAL sends, each after the previous run's
 * step started).
 * BENCH_CPU_PROF=<file> writes a V8 CPU profile of the burst alone (open it in Chrome's DevTools, or
 * summarise it with bench/jobs/profile-summary.ts).
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import os from "node:os";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { Inngest } from "inngest";
import { serve } from "inngest/next";
import postgres from "postgres";
import type { Db } from "../../lib/db";
import { postgresDb } from "../../lib/db/client";
import { migratePgliteDb, migratePostgresDb } from "../../lib/db/migrate";
import * as schema from "../../lib/db/schema";
import { jobsClientOptions } from "../../lib/jobs/client";
import { Executor, httpTransport, inProcessTransport, keepEnvironmentInPlainObject, signingKeyFromSecret, type Transport } from "../../lib/jobs/executor";
import { serveOverHttp } from "../../tests/jobs/fixtures/http-server";

const RUNS = Number(process.env.BENCH_RUNS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const TRANSPORT = process.env.BENCH_TRANSPORT ?? "inprocess";
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 100);

/** SQL statements and transactions issued through the app's database handle, and serve-route calls. */
const counts = { statements: 0, transactions: 0, calls: 0 };
/** BENCH_SQL_COUNTS=1: statements by kind (their first words), per run. */
const byKind = new Map<string, number>();
function countStatement(text: string) {
  counts.statements++;
  if (!process.env.BENCH_SQL_COUNTS) return;
  const key = text.replace(/\s+/g, " ").trim().slice(0, 60);
  byKind.set(key, (byKind.get(key) ?? 0) + 1);
}
/** PGlite: every statement goes through Drizzle's logger (the executor's own statements too). */
const logger = { logQuery: (text: string) => countStatement(text) };

/**
 * PostgreSQL: statements counted on the postgres.js client itself, inside transactions too,
 * under the app's own handle (postgresDb: statements prepared, as the server runs them).
 */
function countingClient(sql: postgres.Sql): postgres.Sql {
  return new Proxy(sql, {
    get(target, prop) {
      if (prop === "unsafe") return (text: string, ...rest: unknown[]) => (countStatement(text), (target.unsafe as (...a: unknown[]) => unknown)(text, ...rest));
      if (prop === "begin") {
        return (...args: unknown[]) => {
          const body = args.pop() as (tx: postgres.Sql) => unknown;
          return (target.begin as (...a: unknown[]) => unknown)(...args, (tx: postgres.Sql) => body(countingClient(tx)));
        };
      }
      return Reflect.get(target, prop);
    },
  });
}

function countTransactions(db: Db): Db {
  const transaction = db.transaction.bind(db);
  db.transaction = ((fn: never, config?: never) => (counts.transactions++, transaction(fn, config))) as Db["transaction"];
  return db;
}

/** BENCH_SQL_TIMES=1 (PGlite): where the database time goes, by statement (its first 90 characters). */
const sqlTimes = new Map<string, { n: number; ms: number }>();
function timeQueries(pg: PGlite) {
  type Query = PGlite["query"];
  const timed = (query: Query): Query =>
    (async (text: string, ...rest: unknown[]) => {
      const t = performance.now();
      try {
        return await (query as (...a: unknown[]) => Promise<unknown>)(text, ...rest);
      } finally {
        const key = text.replace(/\s+/g, " ").slice(0, 90);
        const e = sqlTimes.get(key) ?? { n: 0, ms: 0 };
        e.n++;
        e.ms += performance.now() - t;
        sqlTimes.set(key, e);
      }
    }) as Query;
  pg.query = timed(pg.query.bind(pg));
  const transaction = pg.transaction.bind(pg);
  pg.transaction = ((fn: (tx: { query: Query }) => Promise<unknown>) =>
    transaction((tx) => {
      tx.query = timed(tx.query.bind(tx));
      return fn(tx);
    })) as PGlite["transaction"];
}

function printSqlTimes() {
  if (!sqlTimes.size) return;
  for (const [key, e] of [...sqlTimes].sort((a, b) => b[1].ms - a[1].ms).slice(0, 15)) {
    console.log(`  ${e.ms.toFixed(0).padStart(7)} ms ${String(e.n).padStart(6)}× ${(e.ms / e.n).toFixed(2).padStart(6)} ms  ${key}`);
  }
}

function countCalls(transport: Transport): Transport {
  return (req) => (counts.calls++, transport(req));
}

async function openDatabase(): Promise<{ db: Db; kind: string; close: () => Promise<void> }> {
  const url = process.env.BENCH_DATABASE_URL;
  if (url) {
    const client = postgres(url, { onnotice: () => undefined, max: 10 });
    const db = postgresDb(countingClient(client));
    await migratePostgresDb(db as never);
    await db.execute("truncate job_events, job_runs, job_functions, job_crons cascade" as never);
    return { db: countTransactions(db), kind: "postgres (the app's handle: prepared statements)", close: () => client.end() };
  }
  const pg = await PGlite.create();
  if (process.env.BENCH_SQL_TIMES) timeQueries(pg);
  const db = drizzlePglite(pg, { schema, logger });
  await migratePgliteDb(db as never);
  return { db: countTransactions(db as unknown as Db), kind: "pglite (in memory)", close: () => pg.close() };
}

/** BENCH_CPU_PROF: profiles the burst only (not start-up, migrations or the unloaded phase). */
async function startProfile(): Promise<(() => Promise<void>) | null> {
  const file = process.env.BENCH_CPU_PROF;
  if (!file) return null;
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summary(label: string, latencies: number[], elapsedMs: number | null) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const runsPerSec = elapsedMs === null ? NaN : (latencies.length / elapsedMs) * 1000;
  const rate = elapsedMs === null ? "".padStart(17) : `${runsPerSec.toFixed(1).padStart(10)} runs/s`;
  console.log(`${label.padEnd(9)} ${rate}   p50 ${percentile(sorted, 50).toFixed(2).padStart(8)} ms   p99 ${percentile(sorted, 99).toFixed(2).padStart(8)} ms`);
  return { runsPerSec, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** The step body both sides run: nothing, but note when it started. */
const started = new Map<number, number>();
const waiting = new Map<number, () => void>();
const noopBody = (n: number) => {
  started.set(n, performance.now());
  waiting.get(n)?.();
  return null;
};

async function baseline() {
  started.clear();
  const sentAt: number[] = [];
  Object.assign(counts, { statements: 0, transactions: 0, calls: 0 });
  sqlTimes.clear();
  const t0 = performance.now();
  for (let n = 0; n < RUNS; n++) {
    sentAt[n] = performance.now();
    await Promise.resolve(noopBody(n));
  }
  const elapsed = performance.now() - t0;
  return summary("direct", sentAt.map((s, n) => started.get(n)! - s), elapsed);
}

async function executor() {
  const { db, kind, close } = await openDatabase();
  started.clear();
  const client = new Inngest({ id: "bench", ...jobsClientOptions(async () => ({ db, clock: () => new Date() })) });
  const signingKey = signingKeyFromSecret("bench");
  client.setEnvVars({ INNGEST_SIGNING_KEY: signingKey });
  let done = 0;
  let allDone: () => void = () => undefined;
  const finished = new Promise<void>((r) => (allDone = r));
  const fn = client.createFunction({ id: "noop", retries: 0, triggers: [{ event: "bench/noop" }] }, async ({ event, step }) => {
    await step.run("noop", () => noopBody(event.data.n as number));
    if (++done === RUNS) allDone();
  });
  const handlers = serve({ client, functions: [fn], enableUnauthedSync: false });
  // As the server does where it starts the executor (startEmbeddedExecutor).
  keepEnvironmentInPlainObject();
  const http = TRANSPORT === "http" ? await serveOverHttp(handlers) : null;
  const ex = new Executor({
    db,
    clock: () => new Date(),
    signingKey,
    serveUrl: http?.url ?? "http://127.0.0.1:1/api/inngest",
    transport: countCalls(http ? httpTransport() : inProcessTransport(handlers)),
    concurrency: CONCURRENCY,
    log: { info: () => undefined, warn: console.warn, error: console.error },
  });
  await ex.sync();
  ex.start();

  const sentAt: number[] = [];
  Object.assign(counts, { statements: 0, transactions: 0, calls: 0 });
  sqlTimes.clear();
  const profiler = await startProfile();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let n = 0; n < RUNS; n++) {
    sentAt[n] = performance.now();
    await client.send({ name: "bench/noop", data: { n } });
  }
  const sendMs = performance.now() - t0;
  await finished;
  const elapsed = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await profiler?.();
  const burst = summary("executor", sentAt.map((s, n) => started.get(n)! - s), elapsed);
  const per = (n: number) => (n / RUNS).toFixed(1);
  const burstCounts = `per run (send included): ${per(counts.statements)} SQL statements + ${per(counts.transactions)} transactions, ${per(counts.calls)} serve-route calls; ${((cpu.user + cpu.system) / 1000 / RUNS).toFixed(1)} ms of this process's CPU (less sensitive to the machine's load than runs/s)`;

  const unloaded: number[] = [];
  for (let n = RUNS; n < RUNS + SEQUENTIAL; n++) {
    const stepStarted = new Promise<void>((r) => waiting.set(n, r));
    const t = performance.now();
    await client.send({ name: "bench/noop", data: { n } });
    await stepStarted;
    unloaded.push(started.get(n)! - t);
  }
  const quiet = summary("unloaded", unloaded, null);
  await ex.stop();
  await http?.close();
  await close();
  console.log(`executor: ${kind}, ${TRANSPORT} calls, concurrency ${CONCURRENCY}; send() took ${(sendMs / RUNS).toFixed(2)} ms per event`);
  console.log(burstCounts);
  for (const [key, n] of [...byKind].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${(n / (RUNS + SEQUENTIAL)).toFixed(2).padStart(6)} per run  ${key}`);
  console.log(`load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  printSqlTimes();
  return { burst, quiet };
}

async function main() {
  console.log(`bench/jobs: ${RUNS} no-op runs (one step.run each); load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  const base = await baseline();
  const { burst, quiet } = await executor();
  console.log(`ratio direct/executor: throughput ${(base.runsPerSec / burst.runsPerSec).toFixed(0)}×; latency under load p50 +${(burst.p50 - base.p50).toFixed(1)} ms, p99 +${(burst.p99 - base.p99).toFixed(1)} ms; unloaded p50 +${(quiet.p50 - base.p50).toFixed(1)} ms, p99 +${(quiet.p99 - base.p99).toFixed(1)} ms`);
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
