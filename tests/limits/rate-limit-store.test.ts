import { PassThrough } from "node:stream";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Db } from "../../lib/db";
import { postgresDb } from "../../lib/db/client";
import { queryRows } from "../../lib/db/types";
import { countRequest } from "../../lib/http/rate-limit";
import { consumeShared, sweepRateWindows } from "../../lib/http/rate-limit-store";
import { createLogger, setLogger } from "../../lib/log/logger.mjs";
import { testDb, type TestDb } from "../helpers/db";

/**
 * The shared rate-limit counter (lib/http/rate-limit-store.ts) on the test database, PGlite or
 * PostgreSQL (TEST_DATABASE_URL): windows, roll-over, the sweep, concurrent requests, two nodes'
 * pools counting one bucket, and where countRequest counts (memory on PGlite, the table on
 * PostgreSQL, memory while the database is unreachable).
 *
 * Injected times lie in the future, so that the minute-by-minute sweep of other test files on a
 * shared PostgreSQL database (which uses the real clock) never deletes a window these tests use.
 */
let t: TestDb;
const target = inject("testDatabase");
const onPostgres = target.kind === "postgres";
let run = 0;
const bucket = (name: string) => `test:${name}:${process.pid}:${Date.now().toString(36)}:${run++}`;
const base = () => new Date(Date.now() + 3_600_000 + run * 1000);
const at = (start: Date, seconds: number) => new Date(start.getTime() + seconds * 1000);

async function rowOf(db: Db, key: string) {
  const rows = await queryRows<{ count: number }>(db, sql`select count from rate_limit_windows where bucket = ${key}`);
  return rows[0] ?? null;
}

beforeAll(async () => {
  t = await testDb();
});

describe(`shared rate-limit counter (${target.kind})`, () => {
  it("counts a bucket's requests in its window: `limit` allowed, then refused with the time left", async () => {
    const key = bucket("window");
    const t0 = base();
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push(await consumeShared(t.db, key, 3, at(t0, i * 10)));
    expect(seen.map((s) => s.limited)).toEqual([false, false, false, true]);
    expect(seen.map((s) => s.remaining)).toEqual([2, 1, 0, 0]);
    expect(seen.map((s) => s.resetSeconds)).toEqual([60, 50, 40, 30]);
    expect(seen.every((s) => s.limit === 3)).toBe(true);
    // Buckets are independent.
    expect((await consumeShared(t.db, bucket("other"), 3, at(t0, 30))).remaining).toBe(2);
  });

  it("opens a new window with the first request after the minute, whatever the old count", async () => {
    const key = bucket("rollover");
    const t0 = base();
    for (let i = 0; i < 5; i++) await consumeShared(t.db, key, 2, at(t0, i));
    expect((await consumeShared(t.db, key, 2, at(t0, 59.9))).limited).toBe(true);
    const next = await consumeShared(t.db, key, 2, at(t0, 60));
    expect(next).toEqual({ limit: 2, remaining: 1, resetSeconds: 60, limited: false });
    // The new window runs from its own first request (t0 + 60 s), not from the old one's end.
    expect((await consumeShared(t.db, key, 2, at(t0, 100))).resetSeconds).toBe(20);
    expect((await consumeShared(t.db, key, 2, at(t0, 110))).limited).toBe(true);
    expect((await consumeShared(t.db, key, 2, at(t0, 125))).remaining).toBe(1);
  });

  it("the sweep deletes windows that have ended and keeps the current ones", async () => {
    const t0 = base();
    const ended = bucket("ended");
    const current = bucket("current");
    await consumeShared(t.db, ended, 5, t0);
    await consumeShared(t.db, current, 5, at(t0, 30));
    const deleted = await sweepRateWindows(t.db, at(t0, 60));
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect(await rowOf(t.db, ended)).toBeNull();
    expect(await rowOf(t.db, current)).toEqual({ count: 1 });
    // A swept bucket simply starts again.
    expect((await consumeShared(t.db, ended, 5, at(t0, 61))).remaining).toBe(4);
  });

  it("50 concurrent requests at a limit of 20: exactly 20 allowed, each counted once", async () => {
    const key = bucket("burst");
    const now = base();
    const states = await Promise.all(Array.from({ length: 50 }, () => consumeShared(t.db, key, 20, now)));
    expect(states.filter((s) => !s.limited)).toHaveLength(20);
    expect(states.map((s) => s.remaining).sort((a, b) => a - b)).toEqual([...Array(30).fill(0), ...Array.from({ length: 20 }, (_, i) => i)]);
    expect(await rowOf(t.db, key)).toEqual({ count: 50 });
  });

  it.runIf(onPostgres)("two nodes (two pools on one database) share the budget: the sum is enforced", async () => {
    const url = (target as { url: string }).url;
    const nodeA = postgres(url, { max: 5, onnotice: () => undefined });
    const nodeB = postgres(url, { max: 5, onnotice: () => undefined });
    try {
      const dbA = postgresDb(nodeA);
      const dbB = postgresDb(nodeB);
      const key = bucket("nodes");
      const now = base();
      // 30 requests through each node at once, one budget of 40.
      const states = await Promise.all(Array.from({ length: 60 }, (_, i) => consumeShared(i % 2 ? dbA : dbB, key, 40, now)));
      expect(states.filter((s) => !s.limited)).toHaveLength(40);
      // Sequentially, each node sees the other's requests.
      const seq = bucket("nodes-seq");
      const a1 = await consumeShared(dbA, seq, 3, now);
      const b1 = await consumeShared(dbB, seq, 3, now);
      const a2 = await consumeShared(dbA, seq, 3, now);
      const b2 = await consumeShared(dbB, seq, 3, now);
      expect([a1, b1, a2, b2].map((s) => s.remaining)).toEqual([2, 1, 0, 0]);
      expect(b2.limited).toBe(true);
    } finally {
      await nodeA.end({ timeout: 5 });
      await nodeB.end({ timeout: 5 });
    }
  });
});

describe(`countRequest (${target.kind})`, () => {
  it(onPostgres ? "counts in the shared table on PostgreSQL" : "counts in memory on the embedded database and leaves the table alone", async () => {
    const key = bucket("count-request");
    const states = [];
    for (let i = 0; i < 3; i++) states.push(await countRequest(t.db, key, 2));
    expect(states.map((s) => [s.remaining, s.limited])).toEqual([
      [1, false],
      [0, false],
      [0, true],
    ]);
    expect(await rowOf(t.db, key)).toEqual(onPostgres ? { count: 3 } : null);
  });

  describe.runIf(onPostgres)("when the database cannot count", () => {
    const lines: Array<Record<string, unknown>> = [];
    let previous: ReturnType<typeof setLogger>;
    let unreachable: postgres.Sql;
    beforeAll(() => {
      const stream = new PassThrough();
      stream.on("data", (chunk: Buffer) => {
        for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
      });
      previous = setLogger(createLogger({ level: "info", format: "json", destination: stream }));
      // Nothing listens on port 1: every connection is refused at once.
      unreachable = postgres("postgres://postgres@127.0.0.1:1/none", { max: 1, connect_timeout: 2, onnotice: () => undefined });
    });
    afterAll(async () => {
      setLogger(previous);
      await unreachable.end({ timeout: 1 });
    });

    it("answers from this node's memory instead of failing the request, logs once, and counts in the table again once it can", async () => {
      const down = postgresDb(unreachable);
      const key = bucket("outage");
      const states = [];
      for (let i = 0; i < 3; i++) states.push(await countRequest(down, key, 2));
      expect(states.map((s) => [s.remaining, s.limited])).toEqual([
        [1, false],
        [0, false],
        [0, true],
      ]);
      const warnings = lines.filter((l) => l.component === "rate-limit" && l.level === "warn");
      expect(warnings).toHaveLength(1);
      expect(warnings[0].code).toBe("ECONNREFUSED");

      // Past the breaker's pause, the next request is counted in the shared table again.
      (globalThis as { __easelRateFallback?: { untilMs: number } }).__easelRateFallback!.untilMs = 0;
      const back = bucket("after-outage");
      await countRequest(t.db, back, 2);
      expect(await rowOf(t.db, back)).toEqual({ count: 1 });
      expect(lines.some((l) => l.component === "rate-limit" && l.level === "info" && l.requests_counted_in_memory === 3)).toBe(true);
    });
  });
});
