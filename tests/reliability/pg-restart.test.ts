import { afterAll, beforeAll, describe, expect, inject, it, vi } from "vitest";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import { systemClock } from "../../lib/clock";
import type { Workspace } from "../../lib/db/schema";
import { setDeps } from "../../lib/deps";
import { resetEnvCache } from "../../lib/env";
import { recordingJobSender } from "../../lib/jobs/send";
import { call } from "../helpers/call-route";
import { newApiToken, newWorkspace } from "../helpers/factories";
import { resolverOf, testStores } from "../helpers/test-storage";
import { openBehindProxy, type ProxiedDb } from "./tcp-proxy";

/**
 * PostgreSQL going away under load, without touching the machine's server (other suites use it):
 * Easel's own pool (lib/db/client.ts, as `DATABASE_URL` builds it) talks to a database made for
 * this file through a TCP proxy the test controls.
 *
 * - Cut: every connection is destroyed and new ones are refused for 3 s, then accepted again
 *   (what a restart looks like from the client's side of the network).
 * - Terminate: pg_terminate_backend on every backend of that database (what a restart does to
 *   the sessions themselves: each client gets SQLSTATE 57P01).
 *
 * While 8 clients keep reading and writing boards, every answer must be a success or 503
 * database_unavailable in the envelope (with Retry-After), none slower than the pool's connect
 * timeout allows, and requests succeed again once the database is back, with the same pool: the
 * process is never restarted. On PGlite there is no server to lose: the file is skipped there.
 */
const target = inject("testDatabase");
const onPostgres = target.kind === "postgres";
const WORKERS = 8;
const BOUND_MS = 10_000; // the pool's connect_timeout: no request may wait longer than that (before the fix: 19 s)

type Outcome = { at: number; ms: number; status: number; code: string | null; retryAfter: string | null };

let db: ProxiedDb;
let ws: Workspace;
let token: string;

beforeAll(async () => {
  if (!onPostgres) return;
  vi.stubEnv("EASEL_RATE_LIMIT_PER_MIN", "1000000");
  resetEnvCache();
  db = await openBehindProxy(target.url, "pgcut");
  setDeps({ db: db.handle.db, clock: systemClock, jobs: recordingJobSender(), storage: resolverOf(testStores(db.handle.db, systemClock)) });
  ws = await newWorkspace(db.handle.db, { plan: "team" });
  token = await newApiToken(db.handle.db, ws, { scopes: ["read", "write"] });
});

afterAll(async () => {
  if (!onPostgres) return;
  setDeps(null);
  await db?.close();
  vi.unstubAllEnvs();
  resetEnvCache();
});

/** WORKERS clients alternating GET and POST /v1/:slug/boards until `stop()`; every answer recorded. */
function load() {
  const outcomes: Outcome[] = [];
  let running = true;
  const t0 = Date.now();
  const worker = async (w: number) => {
    for (let i = 0; running; i++) {
      const started = Date.now();
      const post = i % 2 === 1;
      const res = await call(post ? boardsRoute.POST : boardsRoute.GET, {
        method: post ? "POST" : "GET",
        path: `/v1/${ws.slug}/boards`,
        token,
        params: { slug: ws.slug },
        ...(post ? { json: { board: { title: `w${w}-${i}` } } } : {}),
      });
      outcomes.push({ at: started - t0, ms: Date.now() - started, status: res.status, code: res.body?.errors?.[0]?.extensions?.code ?? null, retryAfter: res.headers.get("retry-after") });
      // A failed request is retried after a pause, as a client honouring Retry-After would (shortened).
      if (res.status >= 500) await new Promise((r) => setTimeout(r, 100));
    }
  };
  const all = Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
  return {
    outcomes,
    since: () => Date.now() - t0,
    stop: async () => {
      running = false;
      await all;
      return outcomes;
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ok = (o: Outcome) => o.status === 200 || o.status === 201;

function checkClean(outcomes: Outcome[]) {
  const unclean = outcomes.filter((o) => !ok(o) && !(o.status === 503 && o.code === "database_unavailable" && o.retryAfter === "1"));
  expect(unclean.map((o) => `${o.status} ${o.code}`)).toEqual([]);
  const slowest = Math.max(...outcomes.map((o) => o.ms));
  expect(slowest).toBeLessThan(BOUND_MS);
  return slowest;
}

describe.skipIf(!onPostgres)("PostgreSQL lost under load, Easel not restarted", () => {
  it("connections cut and refused for 3 s: clean 503s, then served again by the same pool", async () => {
    const run = load();
    await sleep(1500);
    const openBefore = db.proxy.open();
    const cutAt = run.since();
    await db.proxy.cut();
    await sleep(3000);
    const backAt = run.since();
    await db.proxy.accept();
    await sleep(3000);
    const outcomes = await run.stop();
    const slowest = checkClean(outcomes);
    const during = outcomes.filter((o) => o.at >= cutAt && o.at < backAt);
    const failed = outcomes.filter((o) => !ok(o));
    const firstOk = outcomes.find((o) => ok(o) && o.at >= backAt);
    expect(openBefore).toBeGreaterThan(0);
    expect(failed.length).toBeGreaterThan(0); // the fault was real
    expect(firstOk).toBeDefined();
    const recovery = firstOk!.at + firstOk!.ms - backAt;
    // Everything that started a second after the database came back succeeded.
    expect(outcomes.filter((o) => o.at > backAt + 1000 && !ok(o))).toEqual([]);
    console.log(
      `[faults] postgres cut (${openBefore} pooled connections destroyed, new ones refused 3 s): ${outcomes.length} requests, ${outcomes.filter(ok).length} ok, ${failed.length} × 503 database_unavailable (${during.length} started during the outage), 0 other; slowest answer ${slowest} ms; first success ${recovery} ms after the database was reachable again`,
    );
  }, 60_000);

  it("pg_terminate_backend on every session (57P01, as a restart does): clean 503s, then served again", async () => {
    const run = load();
    await sleep(1500);
    const killAt = run.since();
    const killed = await db.admin.unsafe(`select count(*)::int as n from (select pg_terminate_backend(pid) from pg_stat_activity where datname = '${db.name}' and pid <> pg_backend_pid()) t`);
    await sleep(2500);
    const outcomes = await run.stop();
    const slowest = checkClean(outcomes);
    const failed = outcomes.filter((o) => !ok(o));
    const after = outcomes.filter((o) => o.at > killAt + 1000);
    expect(killed[0].n).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((o) => !ok(o))).toEqual([]);
    console.log(
      `[faults] pg_terminate_backend of ${killed[0].n} sessions under load: ${outcomes.length} requests, ${outcomes.filter(ok).length} ok, ${failed.length} × 503 database_unavailable, 0 other; slowest answer ${slowest} ms; every request from 1 s after on succeeded (${after.length})`,
    );
  }, 60_000);
});

describe.skipIf(onPostgres)("PostgreSQL lost under load (embedded database)", () => {
  it("is skipped: PGlite runs in-process, there is no server or connection to lose", () => {
    expect(target.kind).toBe("pglite");
  });
});
