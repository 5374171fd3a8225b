/**
 * bench/memory: resident memory of a built Easel (its server, the embedded job executor on, as
 * `npm start` runs it) on PGlite and on PostgreSQL — idle after start, idle after seeding, peak
 * during an API load (autocannon, 32 connections on three read routes) and peak during a 1 GiB
 * multipart upload through the embedded object store (upload_prepare → presigned part PUTs →
 * upload_complete, which the server runs through the AWS SDK). RSS is the server's process tree
 * from /proc (sampled, and the kernel's high-water mark); a probe loaded into the server breaks it
 * down (V8 heap, external and array buffers, WebAssembly memory). The baselines, measured in the
 * same run: a bare `node` process, PGlite alone on the same data, and the same app on PostgreSQL.
 *
 *   npm run build && npm run bench -- memory [--seconds 10] [--upload-mib 1024] [--db pglite|postgres]
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- memory   # + PostgreSQL
 *     (a database of its own is created on that server and dropped afterwards)
 *   EASEL_APP_DIR=/path/to/built/checkout   # a build elsewhere
 */
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { api, builtAppDir, freePort, repoRoot, scratchDatabase, startNode, stopNode, waitFor200, type EaselNode } from "../scale/cluster";
import { peakDuring, rssMiB } from "./rss";
import { seed } from "./seed";

const argv = process.argv.slice(2);
const opt = (name: string, fallback: number) => (argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : fallback);
const SECONDS = opt("seconds", 10);
const UPLOAD_MIB = opt("upload-mib", 1024);
const MiB = 1024 * 1024;
const ONLY = argv.includes("--db") ? argv[argv.indexOf("--db") + 1] : "both"; // pglite | postgres | both
const probe = path.join(import.meta.dirname, "probe.mjs");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (bytes: number) => (bytes / MiB).toFixed(0);

type Breakdown = { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number; wasm: number; wasmSizes?: number[] };

function readProbe(file: string): { now: Breakdown; peak: Breakdown } {
  const p = JSON.parse(fs.readFileSync(file, "utf8"));
  return { now: { ...p.now, wasmSizes: p.wasmSizes }, peak: p.peak };
}
// memoryUsage().external counts WebAssembly memories and array buffers among other native allocations.
const describe = (b: Breakdown) =>
  `V8 heap ${mib(b.heapUsed)} used / ${mib(b.heapTotal)} MiB, external ${mib(b.external)} MiB (of which WebAssembly memory ${mib(b.wasm)}${b.wasmSizes && b.wasmSizes.length > 1 ? ` in ${b.wasmSizes.length} memories: ${b.wasmSizes.map(mib).join(" + ")}` : ""}, array buffers ${mib(b.arrayBuffers)})`;

/** A 1 GiB (by default) file of random bytes, and its md5. */
function makeSource(file: string): string {
  const md5 = crypto.createHash("md5");
  const fd = fs.openSync(file, "w");
  const block = Buffer.alloc(8 * MiB);
  for (let written = 0; written < UPLOAD_MIB * MiB; written += block.length) {
    crypto.randomFillSync(block);
    md5.update(block);
    fs.writeSync(fd, block);
  }
  fs.closeSync(fd);
  return md5.digest("hex");
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
function putPart(url: string, file: string, start: number, end: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: "PUT", agent, headers: { "content-length": end - start + 1 } }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`part PUT → ${res.statusCode}`))));
    });
    req.on("error", reject);
    fs.createReadStream(file, { start, end, highWaterMark: MiB }).pipe(req);
  });
}

/** upload_prepare → 4 parallel part PUTs to the embedded store → upload_complete; returns MiB/s. */
async function upload(origin: string, token: string, file: string, md5: string): Promise<number> {
  const size = UPLOAD_MIB * MiB;
  const t0 = performance.now();
  const prep = (await api(origin, token, "POST", "/v1/bench/assets/upload_prepare", { asset: { title: "big", media_type: "application/octet-stream", size } })).body.data;
  const urls = prep.part_urls as string[];
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const i = next++;
      await putPart(urls[i], file, i * prep.part_size, Math.min(size, (i + 1) * prep.part_size) - 1);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  const done = (await api(origin, token, "POST", "/v1/bench/assets/upload_complete", { asset: { signed_storage_id: prep.signed_storage_id, multipart_upload_id: prep.multipart_upload_id } })).body.data;
  if (done.md5 !== md5) throw new Error(`recorded md5 ${done.md5}, the source's is ${md5}`);
  return UPLOAD_MIB / ((performance.now() - t0) / 1000);
}

async function load(url: string, token: string) {
  const r = await autocannon({ url, connections: 32, duration: SECONDS, headers: { authorization: `Bearer ${token}` } });
  if (r.non2xx) throw new Error(`${url}: ${r.non2xx} non-2xx answers`);
  return r.requests.average;
}

function bareNodeMiB(): number {
  const out = execFileSync(process.execPath, ["-e", "setTimeout(() => console.log(process.memoryUsage().rss), 300)"], { encoding: "utf8" });
  return Number(out) / MiB;
}

function pgliteAlone(dataDir: string, probeFile: string): Breakdown {
  const out = execFileSync(process.execPath, ["--import", probe, "--import", "tsx", path.join(import.meta.dirname, "pglite-alone.ts"), dataDir], {
    cwd: repoRoot,
    encoding: "utf8",
    env: { ...process.env, EASEL_MEMORY_PROBE_FILE: probeFile },
  });
  return JSON.parse(out.trim().split("\n").at(-1)!);
}

type Row = { db: string; start: number; idleStartGc: number; breakdownStartGc: Breakdown; restart: number; idleRestart: number; bareStartJobs: number; bareStartNoJobs: number; breakdownRestart: Breakdown; idleStart: number; idle: number; apiPeak: number; apiRps: number[]; idleAfter: number; uploadPeak: number; uploadMiBs: number; breakdownIdle: Breakdown; breakdownUploadPeak: Breakdown; alone?: Breakdown };

async function measure(db: "PGlite" | "PostgreSQL", databaseUrl: string | undefined, source: string, md5: string): Promise<Row> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "easel-bench-memory-"));
  const dataDir = path.join(work, "data");
  const probeFile = path.join(work, "probe.json");
  const env = {
    EASEL_DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    EASEL_RATE_LIMIT_PER_MIN: "1000000000",
    EASEL_BOARD_TOKEN_RATE_LIMIT_PER_MIN: "1000000000",
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import ${probe}`.trim(),
    EASEL_MEMORY_PROBE_FILE: probeFile,
  };
  const port = await freePort();
  let node: EaselNode | null = startNode(builtAppDir(), env, port);
  try {
    const start = await waitFor200(node);
    await sleep(3000);
    const pid = node.child.pid!;
    const idleStart = rssMiB(pid);
    // How much of it is garbage not yet collected (PGlite's creation of a fresh cluster leaves some).
    fs.writeFileSync(`${probeFile}.gc`, "");
    await sleep(2000);
    const idleStartGc = rssMiB(pid);
    const breakdownStartGc = readProbe(probeFile).now;
    const cliEnv = { EASEL_DATA_DIR: dataDir, DATABASE_URL: databaseUrl };
    const s = await seed(node.origin, cliEnv);
    await sleep(8000); // thumbnails and the other jobs the seeding queued
    const idle = rssMiB(pid);
    const breakdownIdle = readProbe(probeFile).now;
    const routes = [`/v1/bench/assets/${s.asset}`, `/v1/bench/assets/${s.asset}/versions`, `/v1/bench/boards/${s.board}/assets`];
    const apiRun = await peakDuring(pid, async () => {
      const rps: number[] = [];
      for (const r of routes) rps.push(await load(`${node!.origin}${r}`, s.token));
      return rps;
    });
    await sleep(5000);
    const idleAfter = rssMiB(pid);
    fs.writeFileSync(`${probeFile}.reset`, "");
    await sleep(300);
    const up = await peakDuring(pid, () => upload(node!.origin, s.token, source, md5));
    await sleep(300);
    const breakdownUploadPeak = readProbe(probeFile).peak;
    await stopNode(node);
    // The steady state of a long-running server: started again on the existing data, one read.
    node = startNode(builtAppDir(), env, port);
    const restart = await waitFor200(node);
    await api(node.origin, s.token, "GET", routes[2]);
    await sleep(5000);
    const idleRestart = rssMiB(node.child.pid!);
    const breakdownRestart = readProbe(probeFile).now;
    await stopNode(node);
    // What the embedded executor (and the job functions it loads) adds at start: no request at all.
    node = startNode(builtAppDir(), env, port);
    await waitFor200(node);
    await sleep(5000);
    const bareStartJobs = rssMiB(node.child.pid!);
    await stopNode(node);
    node = startNode(builtAppDir(), { ...env, EASEL_JOBS_DISABLED: "1" }, port);
    await waitFor200(node);
    await sleep(5000);
    const bareStartNoJobs = rssMiB(node.child.pid!);
    await stopNode(node);
    node = null;
    const alone = databaseUrl ? undefined : pgliteAlone(dataDir, path.join(work, "alone.json"));
    return { db, start, idleStartGc, breakdownStartGc, restart, idleRestart, bareStartJobs, bareStartNoJobs, breakdownRestart, idleStart, idle, apiPeak: apiRun.peak, apiRps: apiRun.result, idleAfter, uploadPeak: up.peak, uploadMiBs: up.result, breakdownIdle, breakdownUploadPeak, alone };
  } finally {
    if (node) await stopNode(node);
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "easel-bench-memory-src-"));
  const source = path.join(tmp, "source.bin");
  const md5 = makeSource(source);
  const bare = bareNodeMiB();
  const rows: Row[] = [];
  try {
    if (ONLY !== "postgres") rows.push(await measure("PGlite", undefined, source, md5));
    if (ONLY !== "pglite" && !process.env.DATABASE_URL) console.log("(DATABASE_URL unset: PostgreSQL skipped)");
    if (ONLY !== "pglite" && process.env.DATABASE_URL) {
      const scratch = await scratchDatabase(process.env.DATABASE_URL, "bench_memory");
      try {
        rows.push(await measure("PostgreSQL", scratch.url, source, md5));
      } finally {
        await scratch.drop();
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
    agent.destroy();
  }
  const knobs = ["MALLOC_ARENA_MAX", "NODE_OPTIONS"].filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]}`).join(" ");
  console.log(`\nbench/memory: RSS of the server process tree, MiB (${os.cpus().length} CPUs, node ${process.version}${knobs ? `, ${knobs}` : ""}); a bare node process: ${bare.toFixed(0)} MiB`);
  console.log(`${"database".padEnd(11)} ${"first 200".padStart(9)} ${"idle@start".padStart(10)} ${"idle".padStart(6)} ${"API peak".padStart(8)} ${"idle after".padStart(10)} ${`${UPLOAD_MIB} MiB upload peak`.padStart(20)} ${"upload".padStart(10)} ${"restarted: first 200".padStart(20)} ${"idle".padStart(6)}`);
  for (const r of rows) {
    console.log(
      `${r.db.padEnd(11)} ${`${(r.start / 1000).toFixed(1)} s`.padStart(9)} ${r.idleStart.toFixed(0).padStart(10)} ${r.idle.toFixed(0).padStart(6)} ${r.apiPeak.toFixed(0).padStart(8)} ${r.idleAfter.toFixed(0).padStart(10)} ${r.uploadPeak.toFixed(0).padStart(20)} ${`${r.uploadMiBs.toFixed(0)} MiB/s`.padStart(10)} ${`${(r.restart / 1000).toFixed(1)} s`.padStart(20)} ${r.idleRestart.toFixed(0).padStart(6)}`,
    );
  }
  for (const r of rows) console.log(`${r.db}: idle at start ${r.idleStart.toFixed(0)} MiB, ${r.idleStartGc.toFixed(0)} MiB after a full garbage collection (${describe(r.breakdownStartGc)})`);
  console.log("\nwhat the idle figure is made of (after seeding):");
  for (const r of rows) console.log(`  ${r.db}: RSS ${mib(r.breakdownIdle.rss)} MiB = ${describe(r.breakdownIdle)}, the rest code, native libraries and allocator`);
  for (const r of rows) console.log(`  ${r.db}, existing data, 5 s after start, no request: ${r.bareStartJobs.toFixed(0)} MiB with the embedded executor, ${r.bareStartNoJobs.toFixed(0)} MiB with EASEL_JOBS_DISABLED=1`);
  for (const r of rows) console.log(`  ${r.db}, restarted on the existing data: RSS ${mib(r.breakdownRestart.rss)} MiB = ${describe(r.breakdownRestart)}`);
  for (const r of rows) console.log(`  ${r.db} at the upload's peak: RSS ${mib(r.breakdownUploadPeak.rss)} MiB, ${describe(r.breakdownUploadPeak)}`);
  for (const r of rows) if (r.alone) console.log(`  PGlite alone on the same data dir (200 × three reads): RSS ${mib(r.alone.rss)} MiB, ${describe(r.alone)}`);
  const pgl = rows.find((r) => r.db === "PGlite");
  const pg = rows.find((r) => r.db === "PostgreSQL");
  if (pgl && pg) console.log(`  embedded − PostgreSQL, idle: ${(pgl.idle - pg.idle).toFixed(0)} MiB after seeding a fresh dir, ${(pgl.idleRestart - pg.idleRestart).toFixed(0)} MiB restarted (the embedded database's share); ratios ${(pgl.idle / pg.idle).toFixed(2)}, ${(pgl.idleRestart / pg.idleRestart).toFixed(2)}`);
  if (pg) console.log(`  PostgreSQL idle ${Math.max(pg.idle, pg.idleRestart).toFixed(0)} MiB (worst of the idle figures after seeding) vs target 300 MiB: ${Math.max(pg.idle, pg.idleRestart) < 300 ? "under" : "OVER"}`);
  for (const r of rows) console.log(`  ${r.db} API req/s during the load: ${r.apiRps.map((x) => x.toFixed(0)).join(", ")}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
