import { count, inArray, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, expect, it } from "vitest";
import type { Db } from "../../lib/db";
import * as schema from "../../lib/db/schema";
import { eventOutbox } from "../../lib/db/schema/event-outbox";
import { jobEvents } from "../../lib/db/schema/jobs";
import { assetProcessingRequested } from "../../lib/jobs/events";
import { backlog, defaultRetryDelayMs, handOff, OutboxRelay, setRetryDelay, stageEvent } from "../../lib/jobs/outbox";
import { pausedForMs } from "../../lib/jobs/outbox/state";
import { embeddedJobSender, type JobSender } from "../../lib/jobs/send";
import { jobsDb, waitFor } from "./helpers";

/**
 * Several app nodes on one database each run an outbox relay: together they hand every stored
 * event on exactly once, never two at the same time. On PostgreSQL each "node" has its own
 * connection pool, so their claims really race (FOR UPDATE SKIP LOCKED, leases); on PGlite the
 * one session serialises them.
 */
const pools: postgres.Sql[] = [];
afterAll(async () => {
  setRetryDelay(defaultRetryDelayMs);
  for (const p of pools) await p.end({ timeout: 5 });
});

/** One node's database handle: a pool of its own on PostgreSQL. */
async function nodes(n: number): Promise<{ db: Db; nodeDbs: Db[] }> {
  const target = await jobsDb();
  if (target.kind === "pglite") return { db: target.db, nodeDbs: Array.from({ length: n }, () => target.db) };
  const nodeDbs = Array.from({ length: n }, () => {
    const pool = postgres(target.url!, { onnotice: () => undefined, max: 4 });
    pools.push(pool);
    return drizzle(pool, { schema }) as unknown as Db;
  });
  return { db: target.db, nodeDbs };
}

const ROWS = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it(`three relays sending to a job system elsewhere: each of ${ROWS} events sent once, none by two relays at once`, { timeout: 120_000 }, async () => {
  const { db, nodeDbs } = await nodes(3);
  for (let i = 0; i < ROWS; i++) await stageEvent(db, assetProcessingRequested, { assetId: i });
  const sent: string[] = [];
  const inFlight = new Set<string>();
  let overlaps = 0;
  const relays = nodeDbs.map((nodeDb, node) => {
    const jobs: JobSender = {
      async send(_event, _data, options) {
        const id = options!.id!;
        if (inFlight.has(id)) overlaps++;
        inFlight.add(id);
        await sleep(1 + ((node * 7 + sent.length) % 3)); // a network round trip of a few ms
        inFlight.delete(id);
        sent.push(id);
      },
    };
    return new OutboxRelay({ deps: async () => ({ db: nodeDb, clock: () => new Date(), jobs }), pollMs: 50, batchSize: 25 });
  });
  relays.forEach((r) => r.start());
  await waitFor(async () => (await backlog(db)).rows === 0, 60_000, "an empty outbox");
  await Promise.all(relays.map((r) => r.stop()));
  expect(sent).toHaveLength(ROWS);
  expect(new Set(sent).size).toBe(ROWS);
  expect(overlaps).toBe(0);
});

it(`three relays storing into the embedded executor's tables: ${ROWS} job events, one per outbox row`, { timeout: 120_000 }, async () => {
  const { db, nodeDbs } = await nodes(3);
  const ids: string[] = [];
  for (let i = 0; i < ROWS; i++) ids.push(await stageEvent(db, assetProcessingRequested, { assetId: 10_000 + i }));
  const relays = nodeDbs.map((nodeDb) => new OutboxRelay({ deps: async () => ({ db: nodeDb, clock: () => new Date(), jobs: embeddedJobSender() }), pollMs: 50, batchSize: 25 }));
  relays.forEach((r) => r.start());
  await waitFor(async () => (await backlog(db)).rows === 0, 60_000, "an empty outbox");
  await Promise.all(relays.map((r) => r.stop()));
  const stored = await db.select({ key: jobEvents.dedupeKey }).from(jobEvents).where(sql`${jobEvents.name} = ${assetProcessingRequested.name} and (${jobEvents.payload}->'data'->>'assetId')::int >= 10000`);
  expect(stored.map((e) => e.key).sort()).toEqual([...ids].sort());
  const [{ n }] = await db.select({ n: count() }).from(jobEvents).where(inArray(jobEvents.dedupeKey, ids));
  expect(n).toBe(ROWS);
});

it("an event the job system keeps refusing waits on its own backoff, kept; it holds back no other event", { timeout: 60_000 }, async () => {
  const { db } = await nodes(1);
  const refused = await stageEvent(db, assetProcessingRequested, { assetId: -1 });
  for (let i = 0; i < 20; i++) await stageEvent(db, assetProcessingRequested, { assetId: 20_000 + i });
  const sent: number[] = [];
  const jobs: JobSender = {
    async send(_event, data) {
      const { assetId } = data as { assetId: number };
      if (assetId === -1) throw new Error("413 event too large (injected)");
      sent.push(assetId);
    },
  };
  const deps = { db, clock: () => new Date(), jobs };
  const relay = new OutboxRelay({ deps: async () => deps, pollMs: 50, batchSize: 5, retryDelayMs: (n) => 20 * n });
  relay.start();
  try {
    await waitFor(async () => sent.length === 20 && (await db.select().from(eventOutbox)).every((r) => r.attempts >= 4), 30_000, "the others sent and the refused one tried 4 times");
    // Failing again after its first attempts, it no longer pauses the process: a write's own event goes out inline.
    await waitFor(async () => pausedForMs() === 0, 5_000, "no pause");
    const id = await stageEvent(db, assetProcessingRequested, { assetId: 30_000 });
    await handOff(deps, [id]);
    expect(sent.at(-1)).toBe(30_000);
    const [row] = await db.select().from(eventOutbox);
    expect([row.id, row.lastError]).toEqual([refused, "413 event too large (injected)"]);
    expect((await backlog(db)).rows).toBe(1);
  } finally {
    await relay.stop();
    setRetryDelay(defaultRetryDelayMs);
  }
});
