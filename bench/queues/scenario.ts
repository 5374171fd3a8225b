/**
 * One measurement of bench/queues against the code of the tree this file sits in (run.ts runs it
 * in this tree and in a copy of a baseline commit, alternating). Prints one JSON line.
 *
 * - newcomer: workspace A queues 1,000 runs of 10 ms that can fill the executor's two slots
 *   (the function allows 4, 2 per workspace); once A's first two run, B sends one. Time from B's
 *   send to its step's start, and A runs started in between.
 * - rounds: workspaces A and C queue 1,000 runs each of a function limited like processing (2 in
 *   all, 1 per workspace; executor of 4 slots); then D sends one. The same two figures.
 * - claim: the claim statement (claimBatch, one slot) with QUEUED runs of one workspace waiting:
 *   "room" when the workspace has a free slot (the claim takes its next run), "full" when its one
 *   slot is taken and another workspace's single run must be found behind the backlog. Median and
 *   p90 of 40 claims, each lease given back before the next.
 * BENCH_ONLY=claim measures the claim alone; BENCH_EXPLAIN=1 prints its plan on PGlite too.
 * BENCH_DATABASE_URL=postgres://… runs on PostgreSQL (and prints the claim's EXPLAIN ANALYZE
 * with the backlog, "full" case), else PGlite in memory.
 */
import os from "node:os";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { Inngest } from "inngest";
import { serve } from "inngest/next";
import postgres from "postgres";
import type { Db } from "../../lib/db";
import { postgresDb } from "../../lib/db/client";
import { migratePgliteDb, migratePostgresDb } from "../../lib/db/migrate";
import * as schema from "../../lib/db/schema";
import { jobsClientOptions } from "../../lib/jobs/client";
import { Executor, inProcessTransport, signingKeyFromSecret } from "../../lib/jobs/executor";
import { saveSyncedFunctions } from "../../lib/jobs/executor/store/functions";
import { ingestEvents } from "../../lib/jobs/executor/store/ingest";
import { claimBatch } from "../../lib/jobs/executor/store/queue";

const QUEUED = Number(process.env.BENCH_QUEUED ?? 5000);
const url = process.env.BENCH_DATABASE_URL;

/** The claim statements' texts and parameters as sent (PostgreSQL), for EXPLAIN ANALYZE. */
let lastClaim: { text: string; params: unknown[] } | null = null;

async function openDatabase(): Promise<{ db: Db; raw: postgres.Sql | null; pglite?: PGlite; close: () => Promise<void> }> {
  if (url) {
    const client = postgres(url, { onnotice: () => undefined, max: 10 });
    const watched = new Proxy(client, {
      get(target, prop) {
        if (prop === "unsafe") {
          return (text: string, params: unknown[], ...rest: unknown[]) => {
            if (/^with (db_now|candidate) as/.test(text)) lastClaim = { text, params };
            return (target.unsafe as (...a: unknown[]) => unknown)(text, params, ...rest);
          };
        }
        if (prop === "begin") {
          return (...args: unknown[]) => {
            const body = args.pop() as (tx: postgres.Sql) => unknown;
            return (target.begin as (...a: unknown[]) => unknown)(...args, (tx: postgres.Sql) =>
              body(
                new Proxy(tx, {
                  get: (t, p) =>
                    p === "unsafe"
                      ? (text: string, params: unknown[], ...rest: unknown[]) => {
                          if (/^with (db_now|candidate) as/.test(text)) lastClaim = { text, params };
                          return (t.unsafe as (...a: unknown[]) => unknown)(text, params, ...rest);
                        }
                      : Reflect.get(t, p),
                }),
              ),
            );
          };
        }
        return Reflect.get(target, prop);
      },
    });
    const db = postgresDb(watched);
    await migratePostgresDb(db as never);
    await db.execute(sql`truncate job_events, job_runs, job_functions, job_crons cascade`);
    return { db, raw: client, close: () => client.end() };
  }
  const pg = await PGlite.create();
  const logger = { logQuery: (text: string, params: unknown[]) => void (/^with (db_now|candidate) as/.test(text) && (lastClaim = { text, params })) };
  const db = drizzlePglite(pg, { schema, logger }) as unknown as Db;
  await migratePgliteDb(db as never);
  return { db, raw: null, pglite: pg, close: () => pg.close() };
}

type Timing = { ms: number; othersBetween: number };

/** Floods `backlog` workspaces with `perWorkspace` runs, then sends one run of a new workspace: how long until it starts. */
async function newcomer(db: Db, o: { slots: number; concurrency: [{ limit: number }, { key: string; limit: number }]; backlog: number[]; perWorkspace: number; startedFirst: number }): Promise<Timing> {
  await db.execute(sql`truncate job_events, job_runs, job_functions, job_crons cascade`);
  const client = new Inngest({ id: "bench-queues", ...jobsClientOptions(async () => ({ db, clock: () => new Date() })) });
  const signingKey = signingKeyFromSecret("bench-queues");
  client.setEnvVars({ INNGEST_SIGNING_KEY: signingKey });
  const starts: { ws: number; at: number }[] = [];
  const fn = client.createFunction({ id: "slow", retries: 0, concurrency: o.concurrency, triggers: [{ event: "bench/slow" }] }, async ({ event, step }) => {
    await step.run("work", async () => {
      starts.push({ ws: event.data.workspaceId as number, at: performance.now() });
      await new Promise((r) => setTimeout(r, 10));
    });
  });
  const handlers = serve({ client, functions: [fn], enableUnauthedSync: false });
  const ex = new Executor({
    db,
    clock: () => new Date(),
    signingKey,
    serveUrl: "http://127.0.0.1:1/api/inngest",
    transport: inProcessTransport(handlers),
    concurrency: o.slots,
    pollMs: 100,
    log: { info: () => undefined, warn: console.warn, error: console.error },
  });
  await ex.sync();
  ex.start();
  for (const ws of o.backlog) await client.send(Array.from({ length: o.perWorkspace }, () => ({ name: "bench/slow", data: { workspaceId: ws } })));
  while (starts.length < o.startedFirst) await new Promise((r) => setTimeout(r, 5));
  const before = starts.length;
  const sentAt = performance.now();
  await client.send({ name: "bench/slow", data: { workspaceId: 999 } });
  let mine: { at: number } | undefined;
  while (!(mine = starts.find((s) => s.ws === 999))) await new Promise((r) => setTimeout(r, 2));
  const othersBetween = starts.filter((s) => s.ws !== 999 && s.at < mine!.at).length - before;
  await db.execute(sql`delete from job_queue where lease_token is null`);
  await ex.stop();
  return { ms: mine.at - sentAt, othersBetween };
}

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], p90: s[Math.floor(s.length * 0.9)] };
}

/** The claim statement with QUEUED runs of workspace 1 waiting. */
async function claimCost(db: Db, raw: postgres.Sql | null, pglite?: PGlite) {
  await db.execute(sql`truncate job_events, job_runs, job_functions, job_crons cascade`);
  const now = new Date();
  await saveSyncedFunctions(db, [{ id: "claim", name: "claim", url: "http://x/api/inngest?fnId=claim&stepId=step", triggers: [{ event: "bench/claim" }], concurrency: [{ limit: 2 }, { key: "event.data.workspaceId", limit: 1 }], maxAttempts: 1 }], now);
  await ingestEvents(db, Array.from({ length: QUEUED }, () => ({ name: "bench/claim", data: { workspaceId: 1 } })), now);
  const giveBack = (ids: number[]) => db.execute(sql`update job_queue set lease_token = null, lease_until = null where id in ${sql.raw(`(${ids.join(",")})`)}`);
  const measure = async () => {
    const ms: number[] = [];
    let empty = 0;
    for (let i = 0; i < 40; i++) {
      const t = performance.now();
      const { claims } = await claimBatch(db, new Date(), 60_000, 1, []);
      ms.push(performance.now() - t);
      // Counted, not fatal: a claim that finds nothing when an item is due is a finding of its own.
      if (claims.length !== 1) empty++;
      if (claims.length) await giveBack(claims.map((c) => c.item.id));
    }
    return { ...stats(ms), empty };
  };
  const room = await measure();
  // Workspace 1's one slot taken for the rest; workspace 2's one run waits behind the backlog.
  const held = await claimBatch(db, new Date(), 600_000, 1, []);
  await ingestEvents(db, [{ name: "bench/claim", data: { workspaceId: 2 } }], new Date());
  const full = await measure();
  let explain: string[] = [];
  if (raw && lastClaim) {
    const claim = lastClaim as { text: string; params: unknown[] };
    await raw
      .begin(async (tx) => {
        const rows = await tx.unsafe(`explain (analyze, buffers) ${claim.text}`, claim.params as never[]);
        explain = rows.map((r) => String(Object.values(r)[0]));
        throw new Error("rollback");
      })
      .catch((err: Error) => {
        if (err.message !== "rollback") throw err;
      });
  }
  if (pglite && lastClaim && process.env.BENCH_EXPLAIN) {
    const claim = lastClaim as { text: string; params: unknown[] };
    await pglite.query("begin");
    const { rows } = await pglite.query(`explain (analyze) ${claim.text}`, claim.params);
    await pglite.query("rollback");
    explain = rows.map((r) => String(Object.values(r as object)[0]));
  }
  await giveBack(held.claims.map((c) => c.item.id));
  return { room, full, explain };
}

async function main() {
  const { db, raw, pglite, close } = await openDatabase();
  const load0 = os.loadavg()[0];
  const skip = { ms: NaN, othersBetween: NaN };
  const claimOnly = process.env.BENCH_ONLY === "claim";
  const one = claimOnly ? skip : await newcomer(db, { slots: 2, concurrency: [{ limit: 4 }, { key: "event.data.workspaceId", limit: 2 }], backlog: [1], perWorkspace: 1000, startedFirst: 2 });
  const rounds = claimOnly ? skip : await newcomer(db, { slots: 4, concurrency: [{ limit: 2 }, { key: "event.data.workspaceId", limit: 1 }], backlog: [1, 3], perWorkspace: 1000, startedFirst: 2 });
  const claim = await claimCost(db, raw, pglite);
  await close();
  console.log(JSON.stringify({ newcomer: one, rounds, claim, load: [load0, os.loadavg()[0]] }));
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
