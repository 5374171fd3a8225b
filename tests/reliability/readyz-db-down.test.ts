import http from "node:http";
import type net from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { systemClock } from "../../lib/clock";
import { setDeps } from "../../lib/deps";
import { markExecutorRunning } from "../../lib/jobs/readiness";
import { recordingJobSender } from "../../lib/jobs/send";
import { createEaselServer } from "../../lib/server/http-server.mjs";
import { publishReadiness, unpublishReadiness } from "../../lib/server/readiness";
import { resolverOf, testStores } from "../helpers/test-storage";
import { openBehindProxy, type ProxiedDb } from "./tcp-proxy";

/**
 * /readyz with PostgreSQL really gone (contract §10: 503 while the database is down), on Easel's
 * own server and Easel's own pool, through the TCP proxy the outage tests use: connections cut and
 * refused → 503 naming the database; accepted again → 200, with the same pool. /healthz stays 200
 * throughout (the process serves HTTP). PostgreSQL runs only: PGlite has no server to lose.
 */
const target = inject("testDatabase");
const onPostgres = target.kind === "postgres";

let db: ProxiedDb;
let server: http.Server;
let origin: string;

beforeAll(async () => {
  if (!onPostgres) return;
  db = await openBehindProxy(target.url, "readyz");
  setDeps({ db: db.handle.db, clock: systemClock, jobs: recordingJobSender(), storage: resolverOf(testStores(db.handle.db, systemClock)) });
  publishReadiness();
  markExecutorRunning(true);
  server = createEaselServer(() => new Promise(() => undefined));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  if (!onPostgres) return;
  unpublishReadiness();
  markExecutorRunning(false);
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  setDeps(null);
  await db?.close();
});

async function get(path: string) {
  const started = Date.now();
  const r = await fetch(`${origin}${path}`);
  return { status: r.status, body: await r.json(), ms: Date.now() - started };
}

describe.skipIf(!onPostgres)("/readyz while PostgreSQL is down", () => {
  it("ready, then 503 naming the database while connections are refused, then ready again", async () => {
    const before = await get("/readyz");
    expect(before.body).toEqual({ status: "ready", checks: { database: "ok", storage: "ok", jobs: "ok" } });

    await db.proxy.cut();
    const down = await get("/readyz");
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ status: "not_ready", checks: { database: "unavailable", storage: "ok", jobs: "ok" } });
    expect(down.ms).toBeLessThan(2_500 + 1_000); // the 2 s bound of each check, plus scheduling slack on a loaded machine
    expect((await get("/healthz")).body).toEqual({ status: "ok" });

    await db.proxy.accept();
    let back = await get("/readyz");
    for (let i = 0; i < 20 && back.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 250)); // the pool reconnects after its (capped) backoff
      back = await get("/readyz");
    }
    expect(back.body).toEqual({ status: "ready", checks: { database: "ok", storage: "ok", jobs: "ok" } });
  }, 30_000);
});
