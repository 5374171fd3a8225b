import http from "node:http";
import type net from "node:net";
import sharp from "sharp";
import { expect } from "vitest";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import type { Db } from "../../lib/db";
import type { Workspace } from "../../lib/db/schema";
import { publishDirectRoutes, unpublishDirectRoutes } from "../../lib/server/direct-routes";
import { createEaselServer } from "../../lib/server/http-server.mjs";
import { answerWith, type WebHandler } from "../../lib/server/node-bridge";
import { assetRow } from "../video/helpers";
import { insertAsset, newApiToken, newBoard, newWorkspace } from "./factories";
import type { TestStorage } from "./test-storage";
import { uploadAsset } from "./uploads";

/**
 * Contract §13, "Tested as a promise": while one workspace attacks, another workspace (B) is
 * measured three ways: its reads keep p99 < 250 ms, its new 64×64 PNG gets its three thumbnails
 * within 30 s, and `/healthz` answers 200 throughout. Reads and /healthz go over a real Easel HTTP
 * server (createEaselServer, direct routes published) in this process, so a blocked event loop,
 * refused connections or exhausted file descriptors all show in the figures.
 */

export const OTHER_TENANT_P99_MS = 250;
export const OTHER_TENANT_THUMBNAILS_MS = 30_000;
/** How long the upload is waited for before it counts as "no thumbnails": twice the promise, so a miss shows its size. */
const THUMBNAILS_GIVE_UP_MS = 2 * OTHER_TENANT_THUMBNAILS_MS;

export type OtherTenant = { ws: Workspace; token: string; assetToken: string; boards: number };

/** Workspace B: a read/write token, 20 boards and one asset to read. */
export async function newOtherTenant(db: Db): Promise<OtherTenant> {
  const ws = await newWorkspace(db, { plan: "team" });
  const token = await newApiToken(db, ws, { scopes: ["read", "write"] });
  const boards = 20;
  for (let i = 0; i < boards; i++) await newBoard(db, ws);
  const asset = await insertAsset(db, ws, { title: "B's asset" });
  return { ws, token, assetToken: asset.token, boards };
}

/**
 * What Next.js would answer for B's two reads (the asset and the board list); anything else is 404.
 * The store's paths, /healthz and /readyz never reach it: the server answers them itself.
 */
async function readRoutes(req: http.IncomingMessage, res: http.ServerResponse, more: ExactRoutes) {
  const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
  const exact = more[`${req.method} ${path}`];
  if (exact) return answerWith(exact, req, res);
  const boards = /^\/v1\/([^/]+)\/boards$/.exec(path);
  const asset = /^\/v1\/([^/]+)\/assets\/([^/]+)$/.exec(path);
  if (req.method === "GET" && boards) return answerWith((request) => boardsRoute.GET(request as never, { params: Promise.resolve({ slug: boards[1] }) }), req, res);
  if (req.method === "GET" && asset) return answerWith((request) => assetRoute.GET(request as never, { params: Promise.resolve({ slug: asset[1], token: asset[2] }) }), req, res);
  res.writeHead(404).end("not found");
}

/** Route handlers by "METHOD /path", for an attack sent over HTTP (e.g. `{"POST /mcp": mcpRoute.POST}`). */
export type ExactRoutes = Record<string, WebHandler>;

/**
 * Easel's HTTP server on a free loopback port, with B's read routes (and `routes`) behind it;
 * `overrides` go to createEaselServer.
 */
export async function startEaselServer(overrides: Parameters<typeof createEaselServer>[1] = {}, routes: ExactRoutes = {}) {
  publishDirectRoutes();
  const server = createEaselServer((req: http.IncomingMessage, res: http.ServerResponse) => readRoutes(req, res, routes), overrides);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    server,
    port,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      unpublishDirectRoutes();
    },
  };
}

type Got = { status: number; ms: number };

/** One GET on a fresh connection; a connection error is status 0 (what a client of a refusing server sees). */
function get(port: number, path: string, headers: Record<string, string>, localAddress: string | undefined): Promise<Got> {
  return new Promise((resolve) => {
    const started = performance.now();
    const req = http.get({ host: "127.0.0.1", port, path, headers, localAddress, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on("error", () => resolve({ status: 0, ms: performance.now() - started }));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `once` on a fixed schedule until `running()` is false, passing how late it started against
 * its due time: a round a blocked loop kept from starting (a blocked loop runs no timer) counts the
 * whole wait. A round that ends past the next slot starts at once, without a backlog.
 */
async function onSchedule(everyMs: number, running: () => boolean, once: (lateMs: number) => Promise<void>) {
  let due = performance.now();
  while (running()) {
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    await once(performance.now() - due);
    due = Math.max(due + everyMs, performance.now());
  }
}

export type OtherTenantFigures = {
  reads: number;
  readStatuses: number[];
  p50: number;
  p99: number;
  max: number;
  health: number;
  healthStatuses: number[];
  healthMaxMs: number;
  /** From B's prepare to its third thumbnail on the asset; null: none within THUMBNAILS_GIVE_UP_MS, or no upload made. */
  thumbnailsMs: number | null;
};

export type ProbeOptions = {
  port: number;
  db: Db;
  /** The storage B's upload is sent to (the bytes go to its presigned URL as a browser's would). */
  storage: TestStorage;
  tenant: OtherTenant;
  /** Between B's rounds of reads (a board list and an asset each); also the /healthz interval. */
  everyMs?: number;
  /** The client address B's reads come from (default: the kernel's choice on 127.0.0.1). */
  readsFrom?: string;
  /** The client address /healthz is polled from: the attacker's, to show health answers even there. */
  healthFrom?: string;
};

/** B uploads a 64×64 PNG: from its prepare to its third thumbnail on the asset, in ms; null if none within THUMBNAILS_GIVE_UP_MS. */
async function thumbnailsMs(opts: ProbeOptions): Promise<number | null> {
  const { tenant } = opts;
  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#0a0" } }).png().toBuffer();
  const started = performance.now();
  const { asset } = await uploadAsset(tenant.ws, tenant.token, opts.storage, png, { media_type: "image/png" });
  while (performance.now() - started < THUMBNAILS_GIVE_UP_MS) {
    if ((await assetRow(opts.db, asset.id)).thumbnails.length === 3) return performance.now() - started;
    await sleep(100);
  }
  return null;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

/**
 * Starts measuring B, after an unmeasured warm-up: reads and /healthz on schedule at once; B's
 * upload when `upload()` is called (the test picks the moment the attack is at its worst).
 * `stop()` waits for the upload's thumbnails, ends the loops and answers the figures.
 */
export async function measureOtherTenant(opts: ProbeOptions) {
  const { port, tenant, everyMs = 100 } = opts;
  const auth = { authorization: `Bearer ${tenant.token}` };
  // Warm-up, unmeasured but checked: the first request of a route compiles code and prepares
  // statements, which is not what a read costs.
  for (const path of [`/v1/${tenant.ws.slug}/boards`, `/v1/${tenant.ws.slug}/assets/${tenant.assetToken}`]) {
    expect((await get(port, path, auth, opts.readsFrom)).status, `B's warm-up read of ${path}`).toBe(200);
  }
  expect((await get(port, "/healthz", {}, opts.healthFrom)).status, "/healthz before the attack").toBe(200);
  // Likewise one upload through to its thumbnails: the first run of the upload routes and of the
  // processing job loads their modules (500 ms of one blocked loop, seen here), once per process.
  expect(await thumbnailsMs(opts), "B's warm-up upload got its thumbnails").not.toBeNull();
  const latencies: number[] = [];
  const readStatuses = new Set<number>();
  const healthStatuses = new Set<number>();
  let health = 0;
  let healthMaxMs = 0;
  let running = true;
  const reads = onSchedule(everyMs, () => running, async (lateMs) => {
    const boards = await get(port, `/v1/${tenant.ws.slug}/boards`, auth, opts.readsFrom);
    const asset = await get(port, `/v1/${tenant.ws.slug}/assets/${tenant.assetToken}`, auth, opts.readsFrom);
    // The first read is timed from when it was due; the second follows it at once.
    latencies.push(lateMs + boards.ms, asset.ms);
    readStatuses.add(boards.status).add(asset.status);
  });
  const healthz = onSchedule(everyMs, () => running, async (lateMs) => {
    const answer = await get(port, "/healthz", {}, opts.healthFrom);
    health++;
    healthMaxMs = Math.max(healthMaxMs, lateMs + answer.ms);
    healthStatuses.add(answer.status);
  });
  let thumbnails: Promise<number | null> = Promise.resolve(null);

  return {
    /** B uploads its 64×64 PNG now; its thumbnails are waited for in `stop()`. */
    upload() {
      thumbnails = thumbnailsMs(opts);
    },
    /** Ends the loops without waiting for the upload: for a test's `finally`, when it failed before `stop()`. */
    async halt() {
      running = false;
      await Promise.all([reads, healthz]);
    },
    async stop(): Promise<OtherTenantFigures> {
      let ms: number | null;
      try {
        ms = await thumbnails;
      } finally {
        running = false;
        await Promise.all([reads, healthz]);
      }
      const sorted = [...latencies].sort((a, b) => a - b);
      return { reads: latencies.length, readStatuses: [...readStatuses], p50: pct(sorted, 50), p99: pct(sorted, 99), max: sorted.at(-1) ?? NaN, health, healthStatuses: [...healthStatuses], healthMaxMs, thumbnailsMs: ms };
    },
  };
}

/** Prints one line of B's figures under `label`, then asserts the three promises. */
export function expectOtherTenantUnharmed(figures: OtherTenantFigures, label: string) {
  const f = figures;
  const thumbs = f.thumbnailsMs === null ? `none within ${THUMBNAILS_GIVE_UP_MS / 1000} s` : `${(f.thumbnailsMs / 1000).toFixed(1)} s`;
  console.log(`[other-tenant] ${label}: reads ${f.reads} ${JSON.stringify(f.readStatuses)} p50 ${f.p50.toFixed(1)} ms, p99 ${f.p99.toFixed(1)} ms, max ${f.max.toFixed(1)} ms; thumbnails ${thumbs}; /healthz ×${f.health} ${JSON.stringify(f.healthStatuses)}, slowest ${f.healthMaxMs.toFixed(0)} ms`);
  expect(f.reads, "B's reads ran").toBeGreaterThanOrEqual(10);
  expect(f.readStatuses, "every read of B answered 200").toEqual([200]);
  expect(f.p99, "B's reads p99 (ms)").toBeLessThan(OTHER_TENANT_P99_MS);
  expect(f.thumbnailsMs, "B's upload got its thumbnails").not.toBeNull();
  expect(f.thumbnailsMs!, "B's thumbnails (ms)").toBeLessThan(OTHER_TENANT_THUMBNAILS_MS);
  expect(f.health, "/healthz was polled").toBeGreaterThanOrEqual(5);
  expect(f.healthStatuses, "every /healthz answered 200").toEqual([200]);
}
