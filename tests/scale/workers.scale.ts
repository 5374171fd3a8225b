import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtAppDir, cli, freePort, scratchDatabase, startNode, stopNode, waitFor200, type EaselNode } from "../../bench/scale/cluster";
import { scaleServerUrl } from "../../bench/scale/setup";
import { exited, followLogLines, type LogLine } from "../helpers/child-process";

/**
 * `npm start` with EASEL_WORKERS=2 on PostgreSQL and the embedded object store: two server
 * processes on one port (docs/scaling.md, "Workers"). One worker owns the object store and runs
 * the job executor; the other forwards `/storage/*` to it. Connections are handed to the workers
 * in turn, so every request below that must reach both is made on a connection of its own; the
 * log (one JSON line per request, with the worker that answered it) says which worker that was.
 * Needs a build (`npm run build`, or EASEL_APP_DIR) and PostgreSQL (TEST_DATABASE_URL or DATABASE_URL).
 */
const serverUrl = scaleServerUrl();
const METRICS_TOKEN = "workers-metrics-token";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let appDir: string;
let node: EaselNode;
let lines: LogLine[] = [];
let db: { url: string; drop: () => Promise<void> };
let dataDir: string;
let sql: postgres.Sql;
let token: string;
let board: string;

async function until<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${node.log()}`);
    await sleep(100);
  }
}

type Answer = { status: number; headers: http.IncomingHttpHeaders; text: string; body: any };

/** One request on a connection of its own (so the cluster hands it to the next worker in turn). */
function request(method: string, url: string, opts: { headers?: Record<string, string>; body?: Buffer | string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const r = http.request(url, { method, agent: false, headers: { connection: "close", ...opts.headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        let body: any = null;
        try {
          body = text ? JSON.parse(text) : null;
        } catch {
          body = null;
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, body });
      });
      res.on("error", reject);
    });
    r.on("error", reject);
    r.end(opts.body);
  });
}

const api = (method: string, pathname: string, body?: unknown) =>
  request(method, `${node.origin}${pathname}`, { headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });

async function png(): Promise<Buffer> {
  return sharp({ create: { width: 24, height: 24, channels: 3, background: { r: crypto.randomInt(256), g: crypto.randomInt(256), b: 7 } } }).png().toBuffer();
}

const md5 = (b: Buffer) => crypto.createHash("md5").update(b).digest("hex");

async function prepare(size: number, mediaType = "image/png") {
  const p = await api("POST", "/v1/workers/assets/upload_prepare", { asset: { title: "w", media_type: mediaType, size } });
  expect(p.status, p.text).toBe(200);
  return p.body.data as { upload_url: string; signed_storage_id: string; multipart_upload_id: string | null; part_size: number | null; part_urls: string[] | null };
}

async function complete(prep: { signed_storage_id: string; multipart_upload_id: string | null }) {
  return api("POST", "/v1/workers/assets/upload_complete", { asset: { signed_storage_id: prep.signed_storage_id, multipart_upload_id: prep.multipart_upload_id ?? undefined, collection_token: board } });
}

/** Bytes to the embedded store as a client sends them: presigned parts, each on its own connection, or one PUT. */
async function send(prep: Awaited<ReturnType<typeof prepare>>, bytes: Buffer, contentType = "image/png") {
  if (prep.part_urls && prep.part_size) {
    for (const [i, url] of prep.part_urls.entries()) {
      const put = await request("PUT", url, { body: bytes.subarray(i * prep.part_size, (i + 1) * prep.part_size) });
      expect(put.status, put.text).toBe(200);
    }
    return;
  }
  const put = await request("PUT", prep.upload_url, { body: bytes, headers: { "content-type": contentType } });
  expect(put.status, put.text).toBe(200);
}

const workerLines = (msg: string) => lines.filter((l) => l.msg === msg && l.component === "cluster");
const roleOf = (role: string) => workerLines("worker started").filter((l) => l.role === role).at(-1)!;
/** The workers that answered requests to routes starting with `prefix`, with the given status. */
const answeredBy = (prefix: string, status?: number) => new Set(lines.filter((l) => l.msg === "request" && String(l.route).startsWith(prefix) && (status === undefined || l.status === status)).map((l) => l.worker));

async function metricValue(name: string, labels: Record<string, string>): Promise<number> {
  const r = await request("GET", `${node.origin}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(r.status).toBe(200);
  let total = 0;
  for (const line of r.text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) total += Number(line.split(" ").at(-1));
  }
  return total;
}

async function startWorkers(env: Record<string, string | undefined>): Promise<EaselNode> {
  const n = startNode(appDir, env, await freePort());
  lines = followLogLines(n.child);
  return n;
}

describe("EASEL_WORKERS is checked before anything starts", () => {
  const refused = async (env: Record<string, string | undefined>, message: RegExp) => {
    const n = startNode(builtAppDir(), { EASEL_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "easel-workers-bad-")), ...env }, await freePort());
    await exited(n.child);
    expect(n.child.exitCode).toBe(1);
    expect(n.log()).toMatch(message);
  };
  it("refuses a value that is no whole number from 1", async () => {
    await refused({ EASEL_WORKERS: "two", DATABASE_URL: serverUrl }, /EASEL_WORKERS must be a whole number from 1 to 256, or .*auto.*got .*two/);
    await refused({ EASEL_WORKERS: "0", DATABASE_URL: serverUrl }, /EASEL_WORKERS must be a whole number/);
    await refused({ EASEL_WORKERS: "1.5", DATABASE_URL: serverUrl }, /EASEL_WORKERS must be a whole number/);
  });
  it("stops the start (exit 1) when a worker cannot boot, rather than restart it forever", async () => {
    await refused({ EASEL_WORKERS: "2", DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" }, /a worker exited while starting: the server cannot start/);
  });
  it("refuses more than one worker on the embedded database", async () => {
    await refused({ EASEL_WORKERS: "2", DATABASE_URL: undefined, TEST_DATABASE_URL: undefined }, /EASEL_WORKERS=2 needs PostgreSQL \(DATABASE_URL\)/);
  });
});

describe("two workers on one port, PostgreSQL and the embedded object store", () => {
  beforeAll(async () => {
    appDir = builtAppDir();
    db = await scratchDatabase(serverUrl, "workers");
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-workers-"));
    node = await startWorkers({
      DATABASE_URL: db.url,
      EASEL_DATA_DIR: dataDir,
      EASEL_WORKERS: "2",
      EASEL_METRICS_TOKEN: METRICS_TOKEN,
      EASEL_RATE_LIMIT_PER_MIN: "100000",
      EASEL_SHUTDOWN_TIMEOUT_S: "20",
    });
    await until("both workers ready", () => workerLines("all workers ready").length > 0, 240_000);
    await waitFor200(node);
    sql = postgres(db.url, { max: 2, onnotice: () => undefined });
    await cli({ DATABASE_URL: db.url }, "workspace", "create", "workers", "--plan", "team");
    token = await cli({ DATABASE_URL: db.url }, "token", "create", "workers", "--scopes", "read,write");
    const b = await api("POST", "/v1/workers/boards", { board: { title: "Workers" } });
    expect(b.status, b.text).toBe(201);
    board = b.body.data.token;
  }, 300_000);

  afterAll(async () => {
    await sql?.end();
    if (node) await stopNode(node);
    await db?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("starts one owner and one member: exactly one job executor", () => {
    const started = workerLines("worker started");
    expect(started.map((l) => l.role).sort()).toEqual(["member", "owner"]);
    const member = roleOf("member").worker;
    const disabled = lines.filter((l) => l.msg === "no job executor on this node (EASEL_JOBS_DISABLED)");
    expect(disabled.map((l) => l.worker)).toEqual([member]);
  });

  it("40 concurrent version writes through both workers: contiguous numbers, each write once", async () => {
    const bytes = await png();
    const first = await prepare(bytes.length);
    await send(first, bytes);
    const done = await complete(first);
    expect(done.status, done.text).toBe(200);
    const asset = done.body.data.token;
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => api("PATCH", `/v1/workers/assets/${asset}`, { asset: { create_version: true, comment: `w${i}` } })));
    expect(results.map((r) => r.status)).toEqual(Array(40).fill(200));
    const list = await api("GET", `/v1/workers/assets/${asset}/versions?per_page=100`);
    const H = list.body.head_version_number;
    expect(H).toBe(41);
    expect(list.body.data.map((v: { version_number: number }) => v.version_number)).toEqual(Array.from({ length: 40 }, (_, i) => 40 - i));
    expect(list.body.data.map((v: { comment: string }) => v.comment).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `w${i}`).sort());
    // Both workers answered some of the writes.
    expect(answeredBy("/v1/").size).toBe(2);
  });

  it("presigned PUTs through either worker land intact in the owner's store", async () => {
    const forwarded = () => answeredBy("/storage/", 200).has(roleOf("member").worker);
    for (let i = 0; i < 16 && (i < 6 || !forwarded()); i++) {
      if (i % 3 === 2) await request("GET", `${node.origin}/healthz`);
      const bytes = await png();
      const prep = await prepare(bytes.length);
      await send(prep, bytes);
      const done = await complete(prep);
      expect(done.status, done.text).toBe(200);
      expect(done.body.data.md5).toBe(md5(bytes));
      const read = await request("GET", done.body.data.url ?? done.body.data.download_url ?? `${node.origin}/v1/workers/assets/${done.body.data.token}`, { headers: { authorization: `Bearer ${token}` } });
      expect(read.status).toBe(200);
    }
    // The member answered storage requests too: by forwarding them.
    expect(forwarded()).toBe(true);
  });

  it("a multipart upload whose parts go through both workers completes with the right md5", async () => {
    const bytes = crypto.randomBytes(12 * 1024 * 1024 + 12345);
    const prep = await prepare(bytes.length, "application/octet-stream");
    expect(prep.part_urls!.length).toBe(2);
    // Each part twice, on a connection of its own each time, so the parts go through both workers
    // in turn (a part sent again replaces the first copy, as S3 does).
    await send(prep, bytes, "application/octet-stream");
    await send(prep, bytes, "application/octet-stream");
    const done = await complete(prep);
    expect(done.status, done.text).toBe(200);
    expect(done.body.data.md5).toBe(md5(bytes));
  });

  it("a gcs workspace on the embedded store: a member's object calls go to the owner, uploads land intact", async () => {
    await cli({ DATABASE_URL: db.url }, "workspace", "create", "workersgcs", "--plan", "team", "--storage", "gcs");
    const gcsToken = await cli({ DATABASE_URL: db.url }, "token", "create", "workersgcs", "--scopes", "read,write");
    const call = (method: string, pathname: string, body?: unknown) =>
      request(method, `${node.origin}${pathname}`, { headers: { authorization: `Bearer ${gcsToken}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const from = lines.length;
    const completedBy = () => new Set(lines.slice(from).filter((l) => l.msg === "request" && String(l.route).endsWith("/upload_complete") && l.status === 200).map((l) => l.worker));
    // Until the member has completed some (each upload is four connections: a probe in between
    // now and then changes which worker the next connection goes to).
    for (let i = 0; i < 16 && (i < 4 || !completedBy().has(roleOf("member").worker)); i++) {
      if (i % 3 === 2) await request("GET", `${node.origin}/healthz`);
      const bytes = await png();
      const p = await call("POST", "/v1/workersgcs/assets/upload_prepare", { asset: { title: "g", media_type: "image/png", size: bytes.length } });
      expect(p.status, p.text).toBe(200);
      const start = await request("POST", p.body.data.upload_url, { headers: { "x-goog-resumable": "start" } });
      expect(start.status, start.text).toBe(201);
      const put = await request("PUT", String(start.headers.location), { body: bytes });
      expect(put.status, put.text).toBe(200);
      const done = await call("POST", "/v1/workersgcs/assets/upload_complete", { asset: { signed_storage_id: p.body.data.signed_storage_id } });
      expect(done.status, done.text).toBe(200);
      // upload_complete reads the object's md5 and size: on the member, from the owner.
      expect(done.body.data.md5).toBe(md5(bytes));
    }
    expect(completedBy().has(roleOf("member").worker)).toBe(true);
  });

  it("a client that goes away mid-upload leaves no object, also when a member forwarded it", async () => {
    const size = 3 * 1024 * 1024;
    const memberCutShort = () => answeredBy("/storage/", 499).has(roleOf("member").worker);
    for (let i = 0; i < 16 && (i < 4 || !memberCutShort()); i++) {
      if (i % 3 === 2) await request("GET", `${node.origin}/healthz`);
      const prep = await prepare(size, "application/octet-stream");
      await new Promise<void>((resolve) => {
        const r = http.request(prep.upload_url, { method: "PUT", agent: false, headers: { "content-length": String(size), "content-type": "application/octet-stream" } });
        r.on("error", () => resolve());
        r.on("close", () => resolve());
        r.write(crypto.randomBytes(1024 * 1024), () => setTimeout(() => r.destroy(), 300));
      });
      const done = await complete(prep);
      expect(done.status, done.text).not.toBe(200);
      expect(done.body.errors[0].extensions.code).toMatch(/not_found|missing|incomplete|storage/);
    }
    // The member saw at least one of them cut short (logged as 499, client closed request).
    expect(memberCutShort()).toBe(true);
    // Nothing half-received stays in the store's folder (bytes being received live in .tmp until complete).
    const tmp = path.join(dataDir, "objects", ".tmp");
    const leftovers = () => (fs.existsSync(tmp) ? fs.readdirSync(tmp) : []);
    await until("the aborted uploads' bytes discarded", () => leftovers().length === 0, 20_000);
    expect(leftovers()).toEqual([]);
  });

  it("/metrics reports every worker: requests made on both add up", async () => {
    const labels = { method: "GET", route: "/v1/openapi.json", status: "200" };
    const before = await metricValue("easel_http_requests_total", labels);
    for (let i = 0; i < 20; i++) expect((await request("GET", `${node.origin}/v1/openapi.json`)).status).toBe(200);
    expect(await metricValue("easel_http_requests_total", labels)).toBe(before + 20);
  });

  it("jobs run exactly once: one run per event and function, each ended on one worker once", async () => {
    const deadline = Date.now() + 90_000;
    let rows: { status: string }[] = [];
    while (Date.now() < deadline) {
      rows = await sql`select status from job_runs`;
      if (rows.length > 0 && rows.every((r) => r.status === "completed" || r.status === "failed")) break;
      await sleep(500);
    }
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.status !== "completed" && r.status !== "failed")).toEqual([]);
    const doubled = await sql`select event_id, function_id, count(*)::int as n from job_runs group by 1, 2 having count(*) > 1`;
    expect(doubled).toEqual([]);
    // Every run that ended was counted once, by the worker that ran it: the sum over the workers
    // equals the runs in the database (a run executed by both would count twice).
    const ended = await sql`select count(*)::int as n from job_runs where status in ('completed', 'failed')`;
    const counted = (await metricValue("easel_job_runs_total", { outcome: "completed" })) + (await metricValue("easel_job_runs_total", { outcome: "failed" }));
    expect(counted).toBe(ended[0].n);
  });

  it("a killed member is restarted, and serves again", async () => {
    const member = roleOf("member");
    const startedBefore = workerLines("worker started").length;
    process.kill(member.pid, "SIGKILL");
    await until("the member's death logged", () => workerLines("a worker died; starting a replacement").find((l) => l.worker === member.worker));
    await until("a replacement", () => workerLines("worker started").length > startedBefore);
    const replacement = roleOf("member");
    expect(replacement.worker).not.toBe(member.worker);
    await until("the replacement ready", () => lines.find((l) => l.msg === "ready" && l.worker === replacement.worker), 120_000);
    for (let i = 0; i < 4; i++) expect((await api("GET", "/v1/workers/boards")).status).toBe(200);
  });

  it("a killed owner hands the store and the executor to the other worker; uploads and jobs go on", async () => {
    const owner = roleOf("owner");
    const heir = roleOf("member");
    process.kill(owner.pid, "SIGKILL");
    await until("the hand-over logged", () => workerLines("the owner worker died: another worker takes the object store and the job executor; starting a replacement").find((l) => l.worker === owner.worker));
    await until("the heir serving the store", () => lines.find((l) => l.msg === "this worker serves the embedded object store" && l.worker === heir.worker));
    await until("the heir running the executor", () => lines.find((l) => l.msg === "this worker took over the job executor" && l.worker === heir.worker));
    // Uploads through both workers (the heir and the dead owner's replacement once it is up).
    await until("a replacement ready", () => lines.find((l) => l.msg === "ready" && l.worker > heir.worker && l.worker !== owner.worker), 120_000);
    const tokens: string[] = [];
    for (let i = 0; i < 4; i++) {
      const bytes = await png();
      const prep = await prepare(bytes.length);
      await send(prep, bytes);
      const done = await complete(prep);
      expect(done.status, done.text).toBe(200);
      expect(done.body.data.md5).toBe(md5(bytes));
      tokens.push(done.body.data.token);
    }
    // The uploads' jobs run to completion on the new owner's executor.
    await until("the new uploads' jobs completed", async () => {
      const runs = await sql`
        select r.status from job_runs r join job_events e on e.id = r.event_id
        join assets a on a.id = (e.payload->'data'->>'assetId')::int where a.token = any(${tokens})`;
      return runs.length > 0 && runs.every((r) => r.status === "completed");
    }, 90_000);
  });

  it("SIGTERM of the primary lets an upload in flight finish, stops every worker and exits 0", async () => {
    const bytes = crypto.randomBytes(2 * 1024 * 1024);
    const prep = await prepare(bytes.length, "application/octet-stream");
    const answer = new Promise<number>((resolve, reject) => {
      const r = http.request(prep.upload_url, { method: "PUT", agent: false, headers: { "content-length": String(bytes.length), "content-type": "application/octet-stream" } }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      });
      r.on("error", reject);
      // Half now, the rest after the stop has begun.
      r.write(bytes.subarray(0, bytes.length / 2));
      setTimeout(() => r.end(bytes.subarray(bytes.length / 2)), 1_500);
    });
    await sleep(300);
    process.kill(node.child.pid!, "SIGTERM");
    expect(await answer).toBe(200);
    await exited(node.child);
    expect(node.child.exitCode).toBe(0);
    expect(workerLines("stopping every worker")).toHaveLength(1);
    // Each worker stopped as a single server does (its own "stopping" line).
    expect(lines.filter((l) => l.msg === "stopping" && l.worker !== undefined).length).toBeGreaterThanOrEqual(2);
  });
});
