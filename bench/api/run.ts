/**
 * bench/api: throughput and latency of three read routes of a running Easel (`npm start`)
 * against a bare node:http server doing the same SQL and answering the same JSON (the ceiling),
 * measured side by side in one run with autocannon (32 connections). Each line also gives the
 * server's CPU time per request (read from /proc, so it holds up on a busy machine better than
 * req/s does), and a last line measures the framework's floor: Next.js answering a trivial
 * handler with no database. Also prints the server's start-up time (fresh and existing data) and
 * its RSS idle and at peak during the load.
 *
 *   npm run build && npx tsx bench/api/run.ts [--seconds 20]          # embedded PGlite
 *   DATABASE_URL=postgres://… npx tsx bench/api/run.ts                 # PostgreSQL (a database of its own is created on that server)
 *
 * `--metrics` measures instead what /metrics costs on the hot path: the same server started with
 * EASEL_METRICS_TOKEN unset (requests not counted) and set (counted, process metrics collected,
 * scraped every 5 s as a Prometheus would), in alternating rounds (off, on, off, on) so drift of a
 * shared machine shows as a spread rather than as a difference, then once more with metrics on and
 * EASEL_LOG_LEVEL=warn to show what the access log line itself costs. Cases: /healthz (answered
 * by Easel's server alone: its own per-request work is all there is), the Next.js floor (an unknown
 * /v1 path) and an authenticated asset read.
 *
 *   npm run build && npx tsx bench/api/run.ts --metrics [--seconds 10]
 *
 * `--workers` (PostgreSQL only) measures EASEL_WORKERS: the same build with 1 worker and with 2
 * (or `--max-workers N`), in alternating rounds (1, 2, 1, 2) on the three reads and the Next.js
 * floor. Besides req/s and latency it prints where the machine's cores went during each load:
 * the server's process tree (primary and workers), autocannon (this process) and PostgreSQL, as
 * shares of all cores, with the load average before and after each round.
 *
 *   npm run build && DATABASE_URL=postgres://… npx tsx bench/api/run.ts --workers [--seconds 15] [--rounds 2]
 *
 * `--goal` prints the throughput goal's figure for each read: Easel's CPU per request minus the
 * framework's floor and the bare server's, in alternating rounds (each round loads the read, the
 * bare server's same answer and both floors back to back, a fixed number of requests each, so
 * drift of a shared machine moves all four alike), with the median of the rounds; a first round
 * of the four loads warms the servers up and is not counted. Two floors:
 * the 404 of an unknown /v1 path (the floor the goal was first stated with; on PostgreSQL it
 * counts the client address in the shared rate-limit table, one statement) and a CORS preflight
 * of the same route (answered by the handler with no database at all).
 *
 *   npm run build && DATABASE_URL=postgres://… npx tsx bench/api/run.ts --goal [--rounds 5] [--requests 20000] [--read asset|versions|board]
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import sharp from "sharp";
import { readLock } from "../../lib/db/embedded/data-dir-lock";
import { cpuMs, rssMiB } from "../memory/rss";
import { SERVER_ENTRY, scratchDatabase } from "../scale/cluster";

const argv = process.argv.slice(2);
const SECONDS = Number(argv[argv.indexOf("--seconds") + 1] || 20) || 20;
const EASEL_PORT = 3911;
const BARE_PORT = 3912;
const root = path.resolve(import.meta.dirname, "../..");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-bench-api-"));
const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(EASEL_PORT), EASEL_DATA_DIR: dataDir, EASEL_RATE_LIMIT_PER_MIN: "1000000000", EASEL_BOARD_TOKEN_RATE_LIMIT_PER_MIN: "1000000000", NEXT_TELEMETRY_DISABLED: "1", EASEL_JOBS_DISABLED: "1", EASEL_WORKERS: "1" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Servers this run started (each in a process group of its own): killed if the run fails, so none holds its port for the next run. */
const started = new Set<ChildProcess>();

/** `--cpu-prof-server <dir>`: the Easel server writes a V8 CPU profile there when it stops (read with bench/jobs/profile-summary.ts). */
const SERVER_PROFILE_DIR = argv.includes("--cpu-prof-server") ? path.resolve(argv[argv.indexOf("--cpu-prof-server") + 1]) : null;

function startEasel(extra: Record<string, string> = {}): ChildProcess {
  const profile = SERVER_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${SERVER_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, path.join(root, SERVER_ENTRY), "-p", String(EASEL_PORT)], { cwd: root, env: { ...env, ...extra }, stdio: "ignore", detached: true });
  started.add(child);
  return child;
}

async function waitReady(child: ChildProcess): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error("easel exited during start-up");
    try {
      // No idle keep-alive socket may outlive the wait: the server closes it after 5 s, racing the next request.
      const r = await fetch(`http://127.0.0.1:${EASEL_PORT}/v1/bench/boards`, { headers: { connection: "close" } });
      await r.arrayBuffer();
      return Date.now() - t0;
    } catch {
      await sleep(50);
    }
  }
}

const stop = async (child: ChildProcess) => {
  try {
    process.kill(-child.pid!, "SIGTERM");
  } catch {}
  for (let i = 0; i < 100 && child.exitCode === null; i++) await sleep(100);
};

async function startBare(connection: string | object): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "bench/api/bare-main.ts")], {
    cwd: root,
    env: { ...process.env, BARE_PORT: String(BARE_PORT), BARE_CONNECTION: typeof connection === "string" ? connection : JSON.stringify(connection) },
    stdio: "ignore",
    detached: true,
  });
  started.add(child);
  for (;;) {
    if (child.exitCode !== null) throw new Error("the bare server exited during start-up");
    try {
      await (await fetch(`http://127.0.0.1:${BARE_PORT}/none`, { headers: { connection: "close" } })).arrayBuffer();
      return child;
    } catch {
      await sleep(100);
    }
  }
}

function cli(...args: string[]): string {
  return execFileSync(process.execPath, ["--import", "tsx", "lib/cli/main.ts", ...args], { cwd: root, env, encoding: "utf8" }).trim().split("\n").at(-1)!;
}

async function api(token: string, method: string, p: string, body?: unknown) {
  const r = await fetch(`http://127.0.0.1:${EASEL_PORT}${p}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", connection: "close" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const j = await r.json().catch(() => null);
  if (!r.ok) throw new Error(`${method} ${p} → ${r.status} ${JSON.stringify(j)}`);
  return j;
}

async function seed() {
  cli("workspace", "create", "bench", "--plan", "team");
  const token = cli("token", "create", "bench", "--scopes", "read,write");
  const board = (await api(token, "POST", "/v1/bench/boards", { board: { title: "Bench" } })).data.token as string;
  let first = "";
  for (let i = 0; i < 30; i++) {
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: i * 8, g: 100, b: 50 } } }).png().toBuffer();
    const prep = (await api(token, "POST", "/v1/bench/assets/upload_prepare", { asset: { title: `Asset ${i}`, media_type: "image/png", size: png.length } })).data;
    const put = await fetch(prep.upload_url, { method: "PUT", body: png, headers: { "content-type": "image/png" } });
    if (!put.ok) throw new Error(`PUT → ${put.status}`);
    const a = (await api(token, "POST", "/v1/bench/assets/upload_complete", { asset: { signed_storage_id: prep.signed_storage_id, collection_token: board } })).data;
    first ||= a.token;
  }
  for (let i = 0; i < 20; i++) await api(token, "PATCH", `/v1/bench/assets/${first}`, { asset: { create_version: true, comment: `v${i}` } });
  return { token, board, asset: first };
}

/** One route under load: throughput, latency, the server's CPU per request and its peak RSS. */
async function load(url: string, headers: Record<string, string>, pid: number, expect = 200) {
  // Warm up first: the first requests of a route compile its code, which is not the steady state.
  await autocannon({ url, connections: 8, amount: 500, headers });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 500);
  const cpu0 = cpuMs(pid);
  const r = await autocannon({ url, connections: 32, duration: SECONDS, headers });
  const cpu = cpuMs(pid) - cpu0;
  clearInterval(sampler);
  const wrong = expect === 200 ? r.non2xx : r.requests.total - (r.statusCodeStats?.[expect]?.count ?? 0);
  if (wrong) throw new Error(`${url}: ${wrong} answers other than ${expect}`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, peak, cpuPerReq: cpu / Math.max(1, r.requests.total) };
}

const METRICS_TOKEN = "bench-metrics-token-0123456789abcdef";

/** `--metrics`: the same cases with /metrics off and on, in alternating rounds (see the header). */
async function metricsMain() {
  const db = process.env.DATABASE_URL ? "PostgreSQL" : "PGlite (embedded)";
  const scratch = process.env.DATABASE_URL ? await scratchDatabase(process.env.DATABASE_URL, "bench_api") : null;
  if (scratch) env.DATABASE_URL = scratch.url;
  let easel = startEasel();
  await waitReady(easel);
  const { token, asset } = await seed();
  await stop(easel);
  const auth = { authorization: `Bearer ${token}` };
  const at = (p: string) => `http://127.0.0.1:${EASEL_PORT}${p}`;
  const cases: [string, string, Record<string, string>, number][] = [
    ["GET /healthz (Easel's server only)", at("/healthz"), {}, 200],
    ["Next.js floor (unknown /v1 path)", at("/v1/bench/no-such-route"), {}, 404],
    ["GET /v1/:slug/assets/:token", at(`/v1/bench/assets/${asset}`), auth, 200],
  ];
  const variants: [string, Record<string, string>][] = [
    ["off", {}],
    ["on", { EASEL_METRICS_TOKEN: METRICS_TOKEN }],
    ["off", {}],
    ["on", { EASEL_METRICS_TOKEN: METRICS_TOKEN }],
    ["on, log warn", { EASEL_METRICS_TOKEN: METRICS_TOKEN, EASEL_LOG_LEVEL: "warn" }],
  ];
  const results = new Map<string, { variant: string; rps: number; p50: number; p99: number; cpuPerReq: number }[]>();
  let scrapes: { ms: number; bytes: number }[] = [];
  console.log(`\n${db}: /metrics off vs on, 32 connections × ${SECONDS} s per case and round; load average before ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  for (const [variant, extra] of variants) {
    easel = startEasel(extra);
    await waitReady(easel);
    // Scraped during the load as a Prometheus would (every 5 s), so the cost of rendering counts too.
    const scraper = extra.EASEL_METRICS_TOKEN
      ? setInterval(async () => {
          const t0 = performance.now();
          const r = await fetch(at("/metrics"), { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }).catch(() => null);
          const body = r ? await r.text() : "";
          if (r?.status === 200) scrapes.push({ ms: performance.now() - t0, bytes: body.length });
        }, 5_000)
      : null;
    for (const [name, url, headers, status] of cases) {
      const r = await load(url, headers, easel.pid!, status);
      results.set(name, [...(results.get(name) ?? []), { variant, ...r }]);
    }
    if (scraper) clearInterval(scraper);
    await stop(easel);
  }
  console.log(`${"case".padEnd(36)} ${"round".padEnd(13)} ${"req/s".padStart(7)} ${"p50".padStart(4)} ${"p99".padStart(4)} ${"CPU/req".padStart(9)}`);
  for (const [name, rows] of results) {
    for (const r of rows) console.log(`${name.padEnd(36)} ${r.variant.padEnd(13)} ${r.rps.toFixed(0).padStart(7)} ${String(r.p50).padStart(4)} ${String(r.p99).padStart(4)} ${`${r.cpuPerReq.toFixed(3)} ms`.padStart(9)}`);
    const mean = (v: string, k: "rps" | "cpuPerReq") => {
      const xs = rows.filter((r) => r.variant === v).map((r) => r[k]);
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    console.log(`${"".padEnd(36)} on/off: req/s ${(mean("on", "rps") / mean("off", "rps")).toFixed(3)}, CPU/req ${((mean("on", "cpuPerReq") - mean("off", "cpuPerReq")) * 1000).toFixed(0)} µs more`);
  }
  scrapes = scrapes.sort((a, b) => a.ms - b.ms);
  if (scrapes.length) console.log(`scrapes during the load: ${scrapes.length}, median ${scrapes[scrapes.length >> 1].ms.toFixed(1)} ms, max ${scrapes.at(-1)!.ms.toFixed(1)} ms, ${(scrapes.at(-1)!.bytes / 1024).toFixed(0)} KiB of text`);
  console.log(`load average after ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  await scratch?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** CPU ms of each PostgreSQL server process on this machine (/proc, comm "postgres"), by pid. */
function postgresCpuMs(): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      if (!stat.includes("(postgres)")) continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100); // utime + stime, in clock ticks of 10 ms
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** CPU ms the whole machine has spent busy (all cores; /proc/stat, clock ticks of 10 ms). */
function machineBusyMs(): number {
  const [, user, nice, system, , , irq, softirq, steal] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
  return ((user + nice + system + irq + softirq + steal) * 1000) / 100;
}

/** PostgreSQL's CPU between two samples: processes that ended in between are left out (an undercount, never negative). */
function postgresCpuSince(before: Map<string, number>): number {
  let total = 0;
  for (const [pid, ms] of postgresCpuMs()) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** One route under load, with where the cores went: the server tree, this process (autocannon), PostgreSQL. */
async function loadWithShares(url: string, headers: Record<string, string>, pid: number, expect: number) {
  await autocannon({ url, connections: 8, amount: 500, headers });
  const t0 = performance.now();
  const server0 = cpuMs(pid);
  const self0 = process.cpuUsage();
  const pg0 = postgresCpuMs();
  const busy0 = machineBusyMs();
  const r = await autocannon({ url, connections: 32, duration: SECONDS, headers });
  const wall = performance.now() - t0;
  const selfUsage = process.cpuUsage(self0);
  const cores = os.availableParallelism();
  const share = (ms: number) => ms / (wall * cores);
  const busy = share(machineBusyMs() - busy0);
  const wrong = expect === 200 ? r.non2xx : r.requests.total - (r.statusCodeStats?.[expect]?.count ?? 0);
  if (wrong) throw new Error(`${url}: ${wrong} answers other than ${expect}`);
  const serverMs = cpuMs(pid) - server0;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuPerReq: serverMs / Math.max(1, r.requests.total),
    server: share(serverMs),
    generator: share((selfUsage.user + selfUsage.system) / 1000),
    postgres: share(postgresCpuSince(pg0)),
    busy,
  };
}

/** `--workers`: EASEL_WORKERS=1 against 2 (or --max-workers), alternating rounds (see the header). */
async function workersMain() {
  if (!process.env.DATABASE_URL) throw new Error("--workers needs PostgreSQL (DATABASE_URL): more than one worker is refused on the embedded database");
  const most = Number(argv[argv.indexOf("--max-workers") + 1] || 2) || 2;
  const scratch = await scratchDatabase(process.env.DATABASE_URL, "bench_api");
  env.DATABASE_URL = scratch.url;
  let easel = startEasel();
  await waitReady(easel);
  const { token, board, asset } = await seed();
  await stop(easel);
  const auth = { authorization: `Bearer ${token}` };
  const at = (p: string) => `http://127.0.0.1:${EASEL_PORT}${p}`;
  const cases: [string, string, Record<string, string>, number][] = [
    ["GET /v1/:slug/assets/:token", at(`/v1/bench/assets/${asset}`), auth, 200],
    ["GET …/assets/:token/versions", at(`/v1/bench/assets/${asset}/versions`), auth, 200],
    ["GET …/boards/:token/assets", at(`/v1/bench/boards/${board}/assets`), auth, 200],
    ["Next.js floor (unknown /v1 path)", at("/v1/bench/no-such-route"), {}, 404],
  ];
  const rounds = Array.from({ length: Number(argv[argv.indexOf("--rounds") + 1] || 2) || 2 }, () => [1, most]).flat();
  const results = new Map<string, { workers: number; rps: number; p50: number; p99: number; cpuPerReq: number; server: number; generator: number; postgres: number; busy: number }[]>();
  const pct = (x: number) => `${(x * 100).toFixed(0)}%`;
  console.log(`\nPostgreSQL: EASEL_WORKERS 1 vs ${most}, 32 connections × ${SECONDS} s per route and round, ${os.availableParallelism()} cores`);
  for (const workers of rounds) {
    const before = os.loadavg()[0];
    easel = startEasel({ EASEL_WORKERS: String(workers) });
    await waitReady(easel);
    // Every worker has booted once the primary says so; a few rounds of requests reach each.
    await sleep(workers > 1 ? 15_000 : 1_000);
    const idle = rssMiB(easel.pid!);
    for (const [name, url, headers, status] of cases) {
      const r = await loadWithShares(url, headers, easel.pid!, status);
      results.set(name, [...(results.get(name) ?? []), { workers, ...r }]);
    }
    await stop(easel);
    console.log(`round EASEL_WORKERS=${workers}: load average ${before.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after; RSS of the server's processes before the load ${idle.toFixed(0)} MiB`);
  }
  console.log(`${"route".padEnd(34)} ${"workers".padStart(7)} ${"req/s".padStart(7)} ${"p50".padStart(4)} ${"p99".padStart(4)} ${"CPU/req".padStart(8)} ${"server".padStart(7)} ${"autocannon".padStart(10)} ${"postgres".padStart(8)} ${"others".padStart(6)} ${"idle".padStart(5)}   (shares of all cores)`);
  for (const [name, rows] of results) {
    for (const r of rows) console.log(`${name.padEnd(34)} ${String(r.workers).padStart(7)} ${r.rps.toFixed(0).padStart(7)} ${String(r.p50).padStart(4)} ${String(r.p99).padStart(4)} ${`${r.cpuPerReq.toFixed(2)} ms`.padStart(8)} ${pct(r.server).padStart(7)} ${pct(r.generator).padStart(10)} ${pct(r.postgres).padStart(8)} ${pct(Math.max(0, r.busy - r.server - r.generator - r.postgres)).padStart(6)} ${pct(Math.max(0, 1 - r.busy)).padStart(5)}`);
    const mean = (w: number, k: "rps" | "cpuPerReq" = "rps") => {
      const xs = rows.filter((r) => r.workers === w).map((r) => r[k]);
      return xs.reduce((a, b) => a + b, 0) / xs.length;
    };
    console.log(`${"".padEnd(34)} ${most} / 1 workers: ${(mean(most) / mean(1)).toFixed(2)} × req/s; CPU/req ${mean(1, "cpuPerReq").toFixed(2)} → ${mean(most, "cpuPerReq").toFixed(2)} ms (means of the rounds)`);
  }
  await scratch.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

/** CPU ms per request of `requests` requests at 16 connections (after a warm-up), from /proc. */
async function cpuPerRequest(url: string, headers: Record<string, string>, pid: number, expect: number, requests: number, method = "GET") {
  await autocannon({ url, method, connections: 8, amount: 500, headers });
  const cpu0 = cpuMs(pid);
  const r = await autocannon({ url, method, connections: 16, amount: requests, headers });
  const wrong = r.requests.total - (r.statusCodeStats?.[expect]?.count ?? 0);
  if (wrong) throw new Error(`${method} ${url}: ${wrong} answers other than ${expect}`);
  return (cpuMs(pid) - cpu0) / r.requests.total;
}

const GOAL_MS = 0.15;

/** `--goal`: Easel − floor − bare per read, rounds alternating the four loads (see the header). */
async function goalMain() {
  const rounds = Number(argv[argv.indexOf("--rounds") + 1] || 5) || 5;
  const requests = Number(argv[argv.indexOf("--requests") + 1] || 20_000) || 20_000;
  const db = process.env.DATABASE_URL ? "PostgreSQL" : "PGlite (embedded)";
  const scratch = process.env.DATABASE_URL ? await scratchDatabase(process.env.DATABASE_URL, "bench_api") : null;
  if (scratch) env.DATABASE_URL = scratch.url;
  let easel = startEasel();
  await waitReady(easel);
  const { token, board, asset } = await seed();
  await stop(easel);
  easel = startEasel();
  await waitReady(easel);
  const lock = readLock(dataDir);
  const bare = await startBare(scratch?.url ?? { path: lock!.address!, database: "postgres", username: "postgres", prepare: false });
  const auth = { authorization: `Bearer ${token}` };
  const easelAt = (p: string) => `http://127.0.0.1:${EASEL_PORT}${p}`;
  const bareAt = (p: string) => `http://127.0.0.1:${BARE_PORT}${p}`;
  // `--read asset|versions|board` measures one read only (with --cpu-prof-server, a profile of it alone).
  const only = argv.includes("--read") ? argv[argv.indexOf("--read") + 1] : null;
  const reads = (
    [
      ["asset", "GET /v1/:slug/assets/:token", `/v1/bench/assets/${asset}`, `/asset/${asset}`],
      ["versions", "GET …/assets/:token/versions", `/v1/bench/assets/${asset}/versions`, `/versions/${asset}`],
      ["board", "GET …/boards/:token/assets", `/v1/bench/boards/${board}/assets`, `/board-assets/${board}`],
    ] as const
  ).filter(([key]) => !only || key === only);
  type Figures = { easel: number; bare: number; floor404: number; floorPreflight: number };
  const results = new Map<string, Figures[]>();
  console.log(`\n${db}: ${rounds} rounds × ${requests} requests per load at 16 connections; ${os.availableParallelism()} cores; load average before ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  // One round: the read, the bare server's same answer and both floors, back to back.
  const loadRound = async (easelPath: string, barePath: string): Promise<Figures> => ({
    easel: await cpuPerRequest(easelAt(easelPath), auth, easel.pid!, 200, requests),
    bare: await cpuPerRequest(bareAt(barePath), {}, bare.pid!, 200, requests),
    floor404: await cpuPerRequest(easelAt("/v1/bench/no-such-route"), {}, easel.pid!, 404, requests),
    floorPreflight: await cpuPerRequest(easelAt(easelPath), {}, easel.pid!, 204, requests, "OPTIONS"),
  });
  // A freshly started server is still compiling its hot paths through the first few thousand
  // requests (the first counted round ran 0.3–0.4 ms per request above the rest): one round of
  // every load first, not counted.
  for (const [, , easelPath, barePath] of reads) await loadRound(easelPath, barePath);
  console.log(`warm-up round done (not counted); load average ${os.loadavg()[0].toFixed(2)}`);
  for (let round = 0; round < rounds; round++) {
    for (const [, name, easelPath, barePath] of reads) {
      results.set(name, [...(results.get(name) ?? []), await loadRound(easelPath, barePath)]);
    }
    console.log(`round ${round + 1} done; load average ${os.loadavg()[0].toFixed(2)}`);
  }
  const ms = (x: number, width = 8) => `${x.toFixed(3)}`.padStart(width);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  console.log(`ms of server CPU per request; goal: Easel − floor − bare ≤ ${GOAL_MS} ms`);
  console.log(`${"read".padEnd(30)} ${"round".padStart(5)} ${"Easel".padStart(8)} ${"bare".padStart(8)} ${"404".padStart(8)} ${"OPTIONS".padStart(8)} ${"− 404 − bare".padStart(12)} ${"− OPTIONS − bare".padStart(16)}`);
  for (const [name, rows] of results) {
    rows.forEach((r, i) => console.log(`${name.padEnd(30)} ${String(i + 1).padStart(5)} ${ms(r.easel)} ${ms(r.bare)} ${ms(r.floor404)} ${ms(r.floorPreflight)} ${ms(r.easel - r.floor404 - r.bare, 12)} ${ms(r.easel - r.floorPreflight - r.bare, 16)}`));
    const by404 = median(rows.map((r) => r.easel - r.floor404 - r.bare));
    const byPreflight = median(rows.map((r) => r.easel - r.floorPreflight - r.bare));
    console.log(`${name.padEnd(30)} ${"median".padStart(5)} ${"".padStart(35)} ${ms(by404, 12)} ${ms(byPreflight, 16)}   ${by404 <= GOAL_MS ? "within" : "over"} the goal by the 404 floor, ${byPreflight <= GOAL_MS ? "within" : "over"} it by the preflight floor`);
  }
  console.log(`load average after ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  await stop(bare);
  await stop(easel);
  await scratch?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

async function main() {
  if (argv.includes("--goal")) return goalMain();
  if (argv.includes("--metrics")) return metricsMain();
  if (argv.includes("--workers")) return workersMain();
  const db = process.env.DATABASE_URL ? "PostgreSQL" : "PGlite (embedded)";
  // A database of this run's own: a second run must not meet the first one's workspace.
  const scratch = process.env.DATABASE_URL ? await scratchDatabase(process.env.DATABASE_URL, "bench_api") : null;
  if (scratch) env.DATABASE_URL = scratch.url;
  let easel = startEasel();
  const fresh = await waitReady(easel);
  const { token, board, asset } = await seed();
  await stop(easel);
  easel = startEasel();
  const existing = await waitReady(easel);
  await fetch(`http://127.0.0.1:${EASEL_PORT}/v1/bench/assets/${asset}`, { headers: { authorization: `Bearer ${token}` } });
  await sleep(2000);
  const idle = rssMiB(easel.pid!);
  const lock = readLock(dataDir);
  const bare = await startBare(scratch?.url ?? { path: lock!.address!, database: "postgres", username: "postgres", prepare: false });
  const auth = { authorization: `Bearer ${token}` };
  const cases = [
    ["GET /v1/:slug/assets/:token", `http://127.0.0.1:${EASEL_PORT}/v1/bench/assets/${asset}`, `http://127.0.0.1:${BARE_PORT}/asset/${asset}`],
    ["GET …/assets/:token/versions", `http://127.0.0.1:${EASEL_PORT}/v1/bench/assets/${asset}/versions`, `http://127.0.0.1:${BARE_PORT}/versions/${asset}`],
    ["GET …/boards/:token/assets", `http://127.0.0.1:${EASEL_PORT}/v1/bench/boards/${board}/assets`, `http://127.0.0.1:${BARE_PORT}/board-assets/${board}`],
  ];
  console.log(`\n${db}: 32 connections × ${SECONDS} s per route; start-up to first answer ${fresh} ms fresh, ${existing} ms existing data; RSS idle ${idle.toFixed(0)} MiB; load average before ${os.loadavg()[0].toFixed(1)}`);
  console.log(`${"route".padEnd(30)} ${"Easel req/s".padStart(11)} ${"p50".padStart(5)} ${"p99".padStart(5)} ${"CPU/req".padStart(8)} ${"bare req/s".padStart(10)} ${"p50".padStart(5)} ${"p99".padStart(5)} ${"CPU/req".padStart(8)} ${"ratio".padStart(6)} ${"peak RSS".padStart(9)}`);
  for (const [name, easelUrl, bareUrl] of cases) {
    const e = await load(easelUrl, auth, easel.pid!);
    const b = await load(bareUrl, {}, bare.pid!);
    const ms = (x: number) => `${x.toFixed(2)} ms`.padStart(8);
    console.log(`${name.padEnd(30)} ${e.rps.toFixed(0).padStart(11)} ${String(e.p50).padStart(5)} ${String(e.p99).padStart(5)} ${ms(e.cpuPerReq)} ${b.rps.toFixed(0).padStart(10)} ${String(b.p50).padStart(5)} ${String(b.p99).padStart(5)} ${ms(b.cpuPerReq)} ${(e.rps / b.rps).toFixed(2).padStart(6)} ${`${e.peak.toFixed(0)} MiB`.padStart(9)}`);
  }
  // The framework's own floor: an unknown /v1 path is answered by a trivial handler (404, no
  // database, no token), so this line is what Next.js costs per request before Easel does anything.
  const floor = await load(`http://127.0.0.1:${EASEL_PORT}/v1/bench/no-such-route`, {}, easel.pid!, 404);
  console.log(`Next.js floor (404 of an unknown /v1 path, no database): ${floor.rps.toFixed(0)} req/s, p50 ${floor.p50} ms, p99 ${floor.p99} ms, ${floor.cpuPerReq.toFixed(2)} ms CPU per request`);
  await stop(bare);
  await stop(easel);
  await scratch?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  for (const child of started) {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // already gone
    }
  }
  process.exit(1);
});
