/**
 * bench/webhooks — webhook fan-out and delivery through the real functions and the embedded
 * executor, every receiver on 127.0.0.1 (one HTTP server, one path per trigger).
 *   npx tsx bench/webhooks/run.ts                   PGlite in memory, executor calls in-process (as the server's)
 *   BENCH_DATABASE_URL=postgres://… npx tsx bench/webhooks/run.ts    (a scratch database: it is wiped)
 *   BENCH_TRIGGERS=1000 BENCH_RATE=100 BENCH_SECONDS=60 BENCH_STEADY_TRIGGERS=10
 *   BENCH_CONCURRENCY (EASEL_JOBS_CONCURRENCY of the server: default 16 on PostgreSQL, 4 on PGlite)
 *   BENCH_TRANSPORT=inprocess|http
 *   BENCH_DRAIN_SECONDS=120 (how long to wait for deliveries still queued after the sending ends)
 *   BENCH_FANOUT_SECONDS=600 (how long to wait for the fan-out's deliveries)
 *   BENCH_PHASES=fanout,steady (either or both)
 *   npx tsx bench/webhooks/run.ts --server          the same phases through a built server, as `npm start` runs it (server.ts)
 * BENCH_CPU_PROF=<file> writes a V8 CPU profile of the steady phase (bench/jobs/profile-summary.ts summarises it).
 * Load averages are printed with each phase: on a shared machine the figures mean little without them.
 * It uses only what every version of lib/webhooks has, so the same script can be run against an
 * older checkout (a `git worktree`) right before the current one, for a before/after in the same conditions.
 * 0. Baseline: the same number of signed POSTs made directly by this process, 16 at a time, each on
 *    a new connection (what a delivery costs with no job runner and no database).
 * 1. Fan-out: one asset_added event to BENCH_TRIGGERS triggers on one board; time from the send
 *    to the first, median and last delivery received, and the last as a multiple of the baseline.
 * 2. Steady load: BENCH_RATE events/s for BENCH_SECONDS to BENCH_STEADY_TRIGGERS triggers;
 *    event→delivery latency (send start to the receiver reading the request), throughput, and
 *    what is left queued (deliveries not made, job queue rows) at the end of the drain.
 */
import fs from "node:fs";
import http from "node:http";
import { Session } from "node:inspector/promises";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { serve } from "inngest/next";
import postgres from "postgres";
import type { Principal } from "../../lib/auth/principal";
import { systemClock } from "../../lib/clock";
import type { Db } from "../../lib/db";
import { queryRows } from "../../lib/db";
import { migratePgliteDb, migratePostgresDb } from "../../lib/db/migrate";
import * as schema from "../../lib/db/schema";
import { setDeps, type Deps } from "../../lib/deps";
import { resetEnvCache } from "../../lib/env";
import { inngest, useSigningKey } from "../../lib/jobs/client";
import { assetChanged } from "../../lib/jobs/events";
import { Executor, httpTransport, inProcessTransport, keepEnvironmentInPlainObject, signingKeyFromSecret } from "../../lib/jobs/executor";
import { inngestJobSender } from "../../lib/jobs/send";
import { getSecret } from "../../lib/secrets";
import { newToken } from "../../lib/tokens";
import { createTrigger } from "../../lib/webhooks";
import { deliverWebhookJob } from "../../lib/webhooks/deliver.job";
import { fanOutWebhooksJob } from "../../lib/webhooks/fan-out.job";
import { signDelivery } from "../../lib/webhooks/sign";
import { createWorkspace } from "../../lib/workspaces/manage-workspaces";
import { serveOverHttp } from "../../tests/jobs/fixtures/http-server";
import { percentile, startReceiver } from "./receiver";

const TRIGGERS = Number(process.env.BENCH_TRIGGERS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const STEADY_TRIGGERS = Number(process.env.BENCH_STEADY_TRIGGERS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? (process.env.BENCH_DATABASE_URL ? 16 : 4));
const PHASES = (process.env.BENCH_PHASES ?? "fanout,steady").split(",");
const BASELINE_CONCURRENCY = 16;
const TRANSPORT = process.env.BENCH_TRANSPORT ?? "inprocess";
const DRAIN_MS = Number(process.env.BENCH_DRAIN_SECONDS ?? 120) * 1000;
const FANOUT_MS = Number(process.env.BENCH_FANOUT_SECONDS ?? 600) * 1000;

// Receivers are on loopback; the data dir only matters if something writes to disk.
process.env.EASEL_WEBHOOK_ALLOW_PRIVATE = "1";
const scratchDir = process.env.EASEL_DATA_DIR ? null : fs.mkdtempSync(path.join(os.tmpdir(), "easel-bench-webhooks-"));
if (scratchDir) process.env.EASEL_DATA_DIR = scratchDir;
process.on("exit", () => scratchDir && fs.rmSync(scratchDir, { recursive: true, force: true }));
// The jobs client read the environment while being imported: read it again with the above.
resetEnvCache();

const admin: Principal = { kind: "session", userId: 0, email: "bench@localhost", owner: true, roles: new Map() };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function openDatabase(): Promise<{ db: Db; kind: string; close: () => Promise<void> }> {
  const url = process.env.BENCH_DATABASE_URL;
  if (url) {
    const client = postgres(url, { onnotice: () => undefined, max: 10 });
    const db = drizzlePostgres(client, { schema });
    await client.unsafe("drop schema if exists public cascade; drop schema if exists drizzle cascade; create schema public;");
    await migratePostgresDb(db as never);
    return { db: db as unknown as Db, kind: "postgres", close: () => client.end() };
  }
  const pg = await PGlite.create();
  const db = drizzlePglite(pg, { schema });
  await migratePgliteDb(db as never);
  return { db: db as unknown as Db, kind: "pglite (in memory)", close: () => pg.close() };
}

async function insertAssets(db: Db, workspaceId: number, boardId: number, n: number): Promise<number[]> {
  const now = new Date();
  const ids: number[] = [];
  for (let i = 0; i < n; i += 500) {
    const rows = await db
      .insert(schema.assets)
      .values(
        Array.from({ length: Math.min(500, n - i) }, (_, j) => ({
          workspaceId, token: newToken(), title: `Bench ${i + j}`, mediaType: "image/png", size: 1000,
          md5: "0".repeat(32), storageKey: `bench/${i + j}`, createdAt: now, updatedAt: now,
        })),
      )
      .returning({ id: schema.assets.id });
    await db.insert(schema.assetBoards).values(rows.map((r) => ({ assetId: r.id, boardId, createdAt: now })));
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

/** POSTs one signed body to each URL, `concurrency` at a time, each on a new connection. */
async function postDirectly(urls: string[], concurrency: number, assetId: number): Promise<void> {
  const body = JSON.stringify({ event: "asset_added", asset: { id: assetId, title: "baseline" } });
  const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
  let next = 0;
  const post = (url: string, i: number) =>
    new Promise<void>((resolve, reject) => {
      const headers = signDelivery(secret, `msg_${i}`, new Date(), body);
      const req = http.request(url, { method: "POST", agent: false, headers: { "content-type": "application/json", ...headers } }, (res) => {
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", reject);
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < urls.length) {
        const i = next++;
        await post(urls[i], i);
      }
    }),
  );
}

/** BENCH_CPU_PROF: a CPU profile of the steady phase only. */
async function startProfile(): Promise<(() => Promise<void>) | null> {
  const file = process.env.BENCH_CPU_PROF;
  if (!file) return null;
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 500 });
  await session.post("Profiler.start");
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
}

async function main() {
  const { db, kind, close } = await openDatabase();
  const deps = { db, clock: systemClock, jobs: inngestJobSender(), storage: () => { throw new Error("no storage in this bench"); } } as Deps;
  setDeps(deps);
  await useSigningKey(inngest, db);
  const signingKey = signingKeyFromSecret(await getSecret(db, "jobs_signing_key"));
  const handlers = serve({ client: inngest, functions: [fanOutWebhooksJob, deliverWebhookJob], enableUnauthedSync: false });
  const served = TRANSPORT === "http" ? await serveOverHttp(handlers) : null;
  // As the server does where it starts the executor (startEmbeddedExecutor).
  keepEnvironmentInPlainObject();
  const executor = new Executor({
    db, clock: systemClock, signingKey, concurrency: CONCURRENCY,
    serveUrl: served?.url ?? "http://127.0.0.1:1/api/inngest",
    transport: served ? httpTransport() : inProcessTransport(handlers),
    log: { info: () => undefined, warn: console.warn, error: console.error },
  });
  await executor.sync();
  executor.start();
  const receiver = await startReceiver();
  const ws = await createWorkspace(db, { slug: `bench-${newToken(6).toLowerCase()}`, name: "Bench", now: new Date() });
  const send = (assetId: number) => deps.jobs.send(assetChanged, { assetId, workspaceId: ws.id, kind: "asset_added", occurredAt: new Date().toISOString() });
  const load = () => `load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`;
  console.log(`bench/webhooks: ${kind}, executor ${TRANSPORT} calls, concurrency ${CONCURRENCY}; ${load()}`);

  const cpuMsSince = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };
  const queued = async () => (await queryRows<{ n: number }>(db, sql`select count(*)::int as n from job_queue`))[0].n;

  if (PHASES.includes("fanout")) {
    // 1. One event to many triggers.
    const [board] = await db.insert(schema.boards).values({ workspaceId: ws.id, token: newToken(), title: "Fan-out", createdAt: new Date(), updatedAt: new Date() }).returning();
    for (let i = 0; i < TRIGGERS; i++) {
      await createTrigger(deps, admin, { hook: "asset_added", hookUrl: receiver.url(`/fan/${i}`), organizationSlug: ws.slug, collectionToken: board.token });
    }
    const [assetId] = await insertAssets(db, ws.id, board.id, 1);

    // 0. Baseline: as many signed POSTs to the same receiver, made directly.
    const b0 = performance.now();
    await postDirectly(Array.from({ length: TRIGGERS }, (_, i) => receiver.url(`/direct/${i}`)), BASELINE_CONCURRENCY, assetId);
    const directMs = performance.now() - b0;
    console.log(`direct    ${TRIGGERS} signed POSTs from this process, ${BASELINE_CONCURRENCY} at a time, new connection each: ${(directMs / 1000).toFixed(2)} s (${((TRIGGERS / directMs) * 1000).toFixed(0)}/s)`);
    receiver.arrivals.length = 0;

    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await send(assetId);
    await receiver.until(() => new Set(receiver.arrivals.map((a) => a.path)).size >= TRIGGERS, t0 + FANOUT_MS);
    const fanCpu = cpuMsSince(cpu0);
    const fan = receiver.arrivals.map((a) => a.at - t0).sort((a, b) => a - b);
    const reached = new Set(receiver.arrivals.map((a) => a.path)).size;
    const lastMs = fan[fan.length - 1];
    console.log(
      `fan-out   ${TRIGGERS} triggers, 1 event: ${reached}/${TRIGGERS} delivered; first ${(fan[0] / 1000).toFixed(2)} s, ` +
        `median ${(percentile(fan, 50) / 1000).toFixed(2)} s, last ${(lastMs / 1000).toFixed(2)} s = ${(lastMs / directMs).toFixed(2)} x direct ` +
        `(${((reached / lastMs) * 1000).toFixed(0)} deliveries/s; ${(fanCpu / Math.max(1, reached)).toFixed(2)} ms of this process's CPU per delivery)`,
    );
    console.log(`          ${load()}`);
    // The fan-out run's last call may still be settling: let it, so the steady phase starts on an idle executor.
    await sleep(1000);
    receiver.arrivals.length = 0;
  }

  if (PHASES.includes("steady")) {
    // 2. A steady stream of events to a few triggers.
    const [steadyBoard] = await db.insert(schema.boards).values({ workspaceId: ws.id, token: newToken(), title: "Steady", createdAt: new Date(), updatedAt: new Date() }).returning();
    for (let i = 0; i < STEADY_TRIGGERS; i++) {
      await createTrigger(deps, admin, { hook: "asset_added", hookUrl: receiver.url(`/steady/${i}`), organizationSlug: ws.slug, collectionToken: steadyBoard.token });
    }
    const events = RATE * SECONDS;
    const assetIds = await insertAssets(db, ws.id, steadyBoard.id, events);
    const sentAt = new Map<number, number>();
    const sends: Promise<void>[] = [];
    const stopProfile = await startProfile();
    const connections0 = receiver.connections();
    const cpu1 = process.cpuUsage();
    const s0 = performance.now();
    for (let i = 0; i < events; i++) {
      const due = s0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      sentAt.set(assetIds[i], performance.now());
      sends.push(send(assetIds[i]));
    }
    await Promise.all(sends);
    const sendEnd = performance.now();
    const expected = events * STEADY_TRIGGERS;
    const steady = () => receiver.arrivals.filter((a) => a.path.startsWith("/steady/"));
    await receiver.until(() => steady().length >= expected, sendEnd + DRAIN_MS);
    const steadyCpu = cpuMsSince(cpu1);
    await stopProfile?.();
    const arrivals = steady();
    const latencies = arrivals.map((a) => a.at - sentAt.get(a.assetId)!).sort((a, b) => a - b);
    const last = arrivals.length ? Math.max(...arrivals.map((a) => a.at)) : performance.now();
    const throughput = (arrivals.length / (last - s0)) * 1000;
    const inWindow = arrivals.filter((a) => a.at <= sendEnd).length;
    // Runs finish a moment after their last delivery: give their last calls a second before counting the queue.
    await sleep(1000);
    console.log(
      `steady    ${RATE} events/s for ${SECONDS} s to ${STEADY_TRIGGERS} triggers (sending took ${((sendEnd - s0) / 1000).toFixed(1)} s): ` +
        `${arrivals.length}/${expected} delivered${arrivals.length < expected ? ` (${expected - arrivals.length} still queued after ${DRAIN_MS / 1000} s of draining)` : ""}; ` +
        `job queue rows left: ${await queued()}`,
    );
    console.log(
      `          event→delivery p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${(latencies.at(-1) ?? NaN).toFixed(0)} ms (delivered ones); ` +
        `throughput ${throughput.toFixed(1)} deliveries/s overall, ${((inWindow / (sendEnd - s0)) * 1000).toFixed(1)}/s while sending; ` +
        `${(steadyCpu / Math.max(1, arrivals.length)).toFixed(2)} ms of this process's CPU per delivery (the sends included); ` +
        `${receiver.connections() - connections0} connections opened to the receiver`,
    );
  }

  console.log(`          ${load()}`);
  await executor.stop(2000);
  await receiver.close();
  await served?.close();
  await close();
  process.exit(0);
}

if (process.argv.includes("--server")) await import("./server");
else
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
