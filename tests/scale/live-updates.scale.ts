import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtAppDir, cli, freePort, scratchDatabase, startNode, stopNode, waitFor200, type EaselNode } from "../../bench/scale/cluster";
import { scaleServerUrl, startCluster, type Cluster } from "../../bench/scale/setup";
import { followLogLines, type LogLine } from "../helpers/child-process";
import { isChange, readEvents, sessionHeadersFor, type OpenStream } from "../live/helpers";

/**
 * Live updates across processes on one PostgreSQL (docs/architecture.md, "Live updates"): the real
 * SSE endpoint of `npm start` processes, a write through the API of another one. Two nodes on
 * different ports, and one node of EASEL_WORKERS=2 whose workers each serve some of the streams.
 * Needs a build (`npm run build`, or EASEL_APP_DIR) and PostgreSQL (TEST_DATABASE_URL or DATABASE_URL).
 */
const serverUrl = scaleServerUrl();
const AUTH_SECRET = `live-scale-${crypto.randomBytes(16).toString("hex")}`;
const LIVE_MS = 2_000;

/** A stream on a connection of its own (under EASEL_WORKERS the cluster hands each new connection to the next worker). */
function stream(origin: string, slug: string, headers: Record<string, string>): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const abort = new AbortController();
    const req = http.request(`${origin}/api/live/${slug}`, { agent: false, headers, signal: abort.signal }, (res) => {
      const body = Readable.toWeb(res) as ReadableStream<Uint8Array>;
      resolve(readEvents(new Response(body, { status: res.statusCode, headers: res.headers as Record<string, string> }), abort));
    });
    req.on("error", (err) => (abort.signal.aborted ? undefined : reject(err)));
    req.end();
  });
}

async function api(origin: string, token: string, method: string, pathname: string, body?: unknown) {
  const r = await fetch(`${origin}${pathname}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, text, body: text ? JSON.parse(text) : null };
}

/** Setup data only (the writes under test go through the API): a workspace, its token, an admin, an asset. */
async function seed(sql: postgres.Sql, run: (...args: string[]) => Promise<string>, slug: string) {
  await run("workspace", "create", slug, "--plan", "team");
  const token = await run("token", "create", slug, "--scopes", "read,write");
  const email = `live-${crypto.randomBytes(3).toString("hex")}@easel.test`;
  await run("admin", "create", email, "correct horse battery staple");
  const [user] = await sql<{ id: number }[]>`select id from users where email = ${email}`;
  const [ws] = await sql<{ id: number }[]>`select id from workspaces where slug = ${slug}`;
  const assetToken = `live${crypto.randomBytes(8).toString("hex")}`;
  await sql`insert into assets (workspace_id, token, title, media_type, size, md5, storage_key, created_at, updated_at) values (${ws.id}, ${assetToken}, 'Live', 'image/png', 10, ${"0".repeat(32)}, ${`ws/${ws.id}/originals/${assetToken}`}, now(), now())`;
  return { token, assetToken, session: await sessionHeadersFor({ id: user.id, email }, AUTH_SECRET) };
}

describe("two nodes on one PostgreSQL", () => {
  let cluster: Cluster;
  let sql: postgres.Sql;
  let A: string;
  let B: string;
  let s: Awaited<ReturnType<typeof seed>>;
  const open: OpenStream[] = [];

  beforeAll(async () => {
    cluster = await startCluster({ serverUrl, nodes: 2, env: { AUTH_SECRET, EASEL_RATE_LIMIT_PER_MIN: "100000" }, nodeEnv: (i): Record<string, string> => (i === 0 ? {} : { EASEL_JOBS_DISABLED: "1" }) });
    [A, B] = cluster.nodes.map((n) => n.origin);
    sql = postgres(cluster.databaseUrl, { max: 2, onnotice: () => undefined });
    s = await seed(sql, cluster.cli, "live");
  }, 300_000);

  afterAll(async () => {
    for (const o of open) o.close();
    await sql?.end();
    await cluster?.close();
  });

  it("a write on node B reaches a page streaming from node A, and one on A a page on B", async () => {
    const onA = await stream(A, "live", s.session);
    const onB = await stream(B, "live", s.session);
    open.push(onA, onB);
    expect([onA.status, onB.status]).toEqual([200, 200]);
    await onA.next((e) => e.event === "ready");
    await onB.next((e) => e.event === "ready");

    const viaB = await api(B, s.token, "PATCH", `/v1/live/assets/${s.assetToken}`, { asset: { title: "written on B" } });
    expect(viaB.status, viaB.text).toBe(200);
    const seenOnA = await onA.next(isChange(s.assetToken, "asset_updated"), LIVE_MS);
    expect((seenOnA.data as { changed: string[] }).changed).toContain("title");

    const viaA = await api(A, s.token, "PATCH", `/v1/live/assets/${s.assetToken}`, { asset: { title: "written on A" } });
    expect(viaA.status, viaA.text).toBe(200);
    await onB.next(isChange(s.assetToken, "asset_updated"), LIVE_MS);
    // Both nodes saw both writes, under the same cursors (the ids travel in the notification).
    const secondOnA = await onA.next(isChange(s.assetToken, "asset_updated"), LIVE_MS);
    expect(secondOnA.id).toBeTruthy();
  });

  it("a LISTEN connection killed under a node: its streams are told to refetch, then get changes again", async () => {
    const onA = await stream(A, "live", s.session);
    open.push(onA);
    await onA.next((e) => e.event === "ready");
    const killed = await sql`select pg_terminate_backend(pid) as ok from pg_stat_activity where datname = current_database() and query ilike 'listen%'`;
    expect(killed.length).toBe(2);
    const reset = await onA.next((e) => e.event === "reset", 15_000);
    expect(reset.raw).toMatch(/^id: /);
    const w = await api(B, s.token, "PATCH", `/v1/live/assets/${s.assetToken}`, { asset: { title: "after the reconnect" } });
    expect(w.status, w.text).toBe(200);
    await onA.next(isChange(s.assetToken, "asset_updated"), LIVE_MS);
  });

  it("streams closed by the browser free their slots on the real server (no leak)", async () => {
    // 12 streams per user is the bound (lib/live/stream-slots.ts): were a closed stream's slot kept,
    // the second round would be refused with 429. The earlier tests' streams go first.
    for (const o of open.splice(0)) o.close();
    await new Promise((r) => setTimeout(r, 300));
    for (let round = 0; round < 3; round++) {
      const streams = await Promise.all(Array.from({ length: 12 }, () => stream(A, "live", s.session)));
      expect(streams.map((x) => x.status)).toEqual(Array(12).fill(200));
      for (const x of streams) await x.next((e) => e.event === "ready");
      for (const x of streams) x.close();
      // The server notices each close when its socket ends; give it that moment.
      await new Promise((r) => setTimeout(r, 300));
    }
    const over = await Promise.all(Array.from({ length: 13 }, () => stream(A, "live", s.session)));
    expect(over.map((x) => x.status).sort()).toEqual([...Array(12).fill(200), 429]);
    for (const x of over) x.close();
    await new Promise((r) => setTimeout(r, 300));
  });

  it("a cursor from node A resumes on node B (a balancer may send the reconnect anywhere)", async () => {
    const onA = await stream(A, "live", s.session);
    open.push(onA);
    await onA.next((e) => e.event === "ready");
    await api(A, s.token, "PATCH", `/v1/live/assets/${s.assetToken}`, { asset: { description: "one" } });
    const last = await onA.next(isChange(s.assetToken), LIVE_MS);
    onA.close();
    const missed = await api(A, s.token, "PATCH", `/v1/live/assets/${s.assetToken}`, { asset: { description: "two" } });
    expect(missed.status).toBe(200);
    const onB = await stream(B, "live", { ...s.session, "last-event-id": last.id! });
    open.push(onB);
    const replayed = await onB.next((e) => e.event === "change", LIVE_MS);
    expect(replayed.data).toMatchObject({ asset: s.assetToken, kind: "asset_updated", changed: ["description"] });
    expect(onB.text()).not.toContain("event: reset");
  });
});

describe("EASEL_WORKERS=2: every worker sees every event", () => {
  let node: EaselNode;
  let db: { url: string; drop: () => Promise<void> };
  let sql: postgres.Sql;
  let dataDir: string;
  let s: Awaited<ReturnType<typeof seed>>;
  let logLines: LogLine[] = [];

  beforeAll(async () => {
    db = await scratchDatabase(serverUrl, "live_workers");
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-live-workers-"));
    node = startNode(builtAppDir(), { DATABASE_URL: db.url, EASEL_DATA_DIR: dataDir, EASEL_WORKERS: "2", AUTH_SECRET, EASEL_SHUTDOWN_TIMEOUT_S: "30" }, await freePort());
    logLines = followLogLines(node.child);
    await waitFor200(node);
    sql = postgres(db.url, { max: 2, onnotice: () => undefined });
    s = await seed(sql, (...args) => cli({ DATABASE_URL: db.url, EASEL_DATA_DIR: dataDir }, ...args), "liveworkers");
  }, 300_000);

  afterAll(async () => {
    await sql?.end();
    if (node) await stopNode(node);
    await db?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("four streams on four connections, spread over both workers, all get one write", async () => {
    const streams = await Promise.all([0, 1, 2, 3].map(() => stream(node.origin, "liveworkers", s.session)));
    for (const st of streams) await st.next((e) => e.event === "ready");
    const w = await api(node.origin, s.token, "PATCH", `/v1/liveworkers/assets/${s.assetToken}`, { asset: { title: "seen by all" } });
    expect(w.status, w.text).toBe(200);
    for (const st of streams) await st.next(isChange(s.assetToken, "asset_updated"), LIVE_MS);
    for (const st of streams) st.close();
    // Each stream's request is logged when it ends, with the worker that served it.
    await expect
      .poll(() => new Set(logLines.filter((l) => l.msg === "request" && String(l.route ?? l.path ?? "").startsWith("/api/live/")).map((l) => l.worker)).size, { timeout: 10_000 })
      .toBe(2);
  });

  it("a stop does not wait on open streams: they end, and the node exits well within its 30 s grace period", async () => {
    const open = await stream(node.origin, "liveworkers", s.session);
    await open.next((e) => e.event === "ready");
    const started = Date.now();
    const ended = open.next(() => false, 10_000).then(
      () => "an event",
      (err: Error) => err.message,
    );
    await stopNode(node);
    expect(await ended).toMatch(/^stream ended/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(node.child.exitCode).toBe(0);
  });
});
