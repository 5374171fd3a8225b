import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestDeps } from "../../tests/helpers/deps";
import { setDeps } from "../deps";
import { markExecutorRunning } from "../jobs/readiness";
import { embeddedLayout } from "../objectstore";
import { createEaselServer } from "./http-server.mjs";
import { publishReadiness, unpublishReadiness } from "./readiness";

/**
 * /healthz and /readyz (contract §10) on Easel's own server, answered before Next.js: the stand-in
 * for Next.js here never answers, as Next.js does not while it starts.
 */
let server: http.Server;
let origin: string;
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let nextCalls = 0;

beforeAll(async () => {
  deps = await useTestDeps();
  fs.rmSync(embeddedLayout().root, { recursive: true, force: true }); // a new install: the store has written nothing yet
  server = createEaselServer(() => {
    nextCalls++;
    return new Promise(() => undefined); // still starting
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  unpublishReadiness();
  markExecutorRunning(false);
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

async function get(path: string, headers: Record<string, string> = {}) {
  const r = await fetch(`${origin}${path}`, { headers });
  return { status: r.status, body: await r.json(), id: r.headers.get("x-request-id"), cache: r.headers.get("cache-control") };
}

describe("health and readiness", () => {
  it("/healthz answers 200 while Next.js has not started, touching nothing", async () => {
    const r = await get("/healthz");
    expect(r).toMatchObject({ status: 200, body: { status: "ok" }, cache: "no-store" });
    expect(nextCalls).toBe(0);
  });

  it("/readyz answers 503 with every check unavailable until the app has booted", async () => {
    unpublishReadiness();
    const r = await get("/readyz");
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ status: "not_ready", checks: { database: "unavailable", storage: "unavailable", jobs: "unavailable" } });
  });

  it("/readyz answers 200 once the database, storage and the job executor answer", async () => {
    publishReadiness();
    markExecutorRunning(true);
    const r = await get("/readyz");
    expect(r.body).toEqual({ status: "ready", checks: { database: "ok", storage: "ok", jobs: "ok" } });
    expect(r.status).toBe(200);
  });

  it("/readyz names the check that fails: a database that does not answer within 2 s, an executor that stopped", async () => {
    const hanging = new Proxy(deps.db, { get: (db, key) => (key === "execute" ? () => new Promise(() => undefined) : Reflect.get(db, key)) });
    setDeps({ ...deps, db: hanging });
    markExecutorRunning(false);
    const started = Date.now();
    const r = await get("/readyz");
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ status: "not_ready", checks: { database: "unavailable", storage: "ok", jobs: "unavailable" } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    setDeps(deps);
    markExecutorRunning(true);
    expect((await get("/readyz")).status).toBe(200);
  });

  it("every response carries X-Request-Id: a well-formed incoming one is echoed, anything else replaced", async () => {
    expect((await get("/healthz", { "x-request-id": "lb-7f3a.42" })).id).toBe("lb-7f3a.42");
    const fresh = (await get("/healthz")).id;
    expect(fresh).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (const bad of ["has space", "x".repeat(129), "quote\"d", "<script>"]) {
      const id = (await get("/healthz", { "x-request-id": bad })).id;
      expect(id).not.toBe(bad);
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("refuses other methods on the health paths", async () => {
    const r = await fetch(`${origin}/healthz`, { method: "POST" });
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toBe("GET, HEAD");
  });
});
