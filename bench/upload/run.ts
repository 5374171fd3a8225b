/**
 * Upload benchmark: a multipart upload (default 1 GiB) through the embedded object store on
 * loopback — prepare (the S3 driver: CreateMultipartUpload + presigned part URLs) → parallel part
 * PUTs → complete (the driver: ListParts + CompleteMultipartUpload) → md5 — compared with `dd
 * conv=fdatasync` of the same bytes on the same disk and with the same upload through s3rver.
 * Each server runs in its own process; its peak RSS growth and CPU time during the upload are reported.
 *
 *   npx tsx bench/upload/run.ts [--size-mib 1024] [--concurrency 4] [--runs 3] [--dir DIR]
 *
 * It also uploads the same bytes through Easel as clients do: the API's upload_prepare → part PUTs
 * to /storage/s3 → upload_complete (which lists the parts, completes, and reads the md5). With a
 * build in this checkout (`npm run build`) the bench starts that Easel itself (`npm start`'s entry,
 * a data dir of its own, an s3 workspace); `--easel-url URL --token TOKEN --slug SLUG
 * [--server-pid PID]` uses a running one instead, `--no-easel` skips it.
 *
 * Every timed phase starts after `sync`, so none pays for the dirty pages an earlier one left
 * (s3rver flushes nothing). It also measures md5 on this CPU: every byte is hashed twice (its
 * part's ETag, the object's md5), which bounds any such store on this machine's cores.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { CompleteMultipartUploadCommand } from "@aws-sdk/client-s3";
import { systemClock } from "../../lib/clock";
import { S3RVER_CREDENTIALS } from "../../lib/objectstore/testing/s3rver";
import { makeS3Client } from "../../lib/storage/s3/config";
import { createS3Driver, ensureBucket } from "../../lib/storage/s3/driver";
import type { StorageDriver } from "../../lib/storage/types";
import { api, builtAppDir, cli, freePort, startNode, stopNode, waitFor200, type EaselNode } from "../scale/cluster";

const args = parseArgs(process.argv.slice(2));
const SIZE = Number(args["size-mib"] ?? 1024) * 1024 * 1024;
const CONCURRENCY = Number(args.concurrency ?? 4);
const RUNS = Number(args.runs ?? 3);
const MiB = 1024 * 1024;

function parseArgs(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, "");
    if (name.startsWith("no-")) out[name] = "1";
    else out[name] = argv[++i];
  }
  return out;
}

/** Flushes every dirty page to disk, so the next timed phase starts from the same state. */
function syncDisk() {
  execFileSync("sync");
}

/** md5 throughput of one core (MiB/s), hashing 256 MiB from memory. */
function md5MiBps(): number {
  const block = crypto.randomBytes(16 * MiB);
  const started = performance.now();
  const hash = crypto.createHash("md5");
  for (let i = 0; i < 16; i++) hash.update(block);
  hash.digest();
  return 256 / ((performance.now() - started) / 1000);
}

// ---------------------------------------------------------------------------------------------
// source bytes, dd

function makeSource(file: string): string {
  const md5 = crypto.createHash("md5");
  const fd = fs.openSync(file, "w");
  const block = Buffer.alloc(8 * MiB);
  for (let written = 0; written < SIZE; written += block.length) {
    const n = Math.min(block.length, SIZE - written);
    crypto.randomFillSync(block, 0, n);
    md5.update(block.subarray(0, n));
    fs.writeSync(fd, block, 0, n);
  }
  fs.closeSync(fd);
  return md5.digest("hex");
}

/** CPU seconds used by this process's waited-for children (cutime + cstime): dd's own CPU. */
function childrenCpuSeconds(): number {
  const stat = fs.readFileSync("/proc/self/stat", "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[13]) + Number(f[14])) / 100;
}

async function runDd(source: string, dir: string): Promise<{ seconds: number; cpu: number }> {
  const target = path.join(dir, "dd.out");
  syncDisk();
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn("dd", [`if=${source}`, `of=${target}`, "bs=8M", "conv=fdatasync"], { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`dd failed: ${err}`))));
  });
  const seconds = (performance.now() - started) / 1000;
  fs.rmSync(target, { force: true });
  return { seconds, cpu: childrenCpuSeconds() - cpuBefore };
}

// ---------------------------------------------------------------------------------------------
// servers in child processes

type Server = { child: ChildProcess; endpoint: string };

async function startServer(kind: "embedded" | "s3rver", dir: string, keys: { accessKeyId: string; secretAccessKey: string }): Promise<Server> {
  const script = path.join(import.meta.dirname, "serve.ts");
  // --server-flags "…": node flags for both servers (e.g. --cpu-prof --cpu-prof-dir DIR, --trace-gc);
  // what the servers print after starting goes to stderr.
  const flags = args["server-flags"]?.split(" ").filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...flags, "--import", "tsx", script, kind, dir, keys.accessKeyId, keys.secretAccessKey], {
    stdio: ["ignore", "pipe", "inherit"],
    cwd: path.resolve(import.meta.dirname, "../.."),
  });
  const endpoint = await new Promise<string>((resolve, reject) => {
    let out = "";
    const onData = (d: Buffer) => {
      out += d;
      const m = /READY (\S+)/.exec(out);
      if (!m) return;
      child.stdout!.off("data", onData);
      child.stdout!.on("data", (more: Buffer) => process.stderr.write(more));
      resolve(m[1]);
    };
    child.stdout!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${kind} server exited (${code})`)));
  });
  return { child, endpoint };
}

function rssKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
}

/** CPU seconds (user + system) a process has used so far: all its threads, and its main thread alone. */
function cpuSeconds(pid: number): { total: number; main: number } {
  const ticks = (file: string) => {
    const stat = fs.readFileSync(file, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in USER_HZ (100 on Linux)
  };
  return { total: ticks(`/proc/${pid}/stat`), main: ticks(`/proc/${pid}/task/${pid}/stat`) };
}

/** Resets the kernel's peak-RSS mark of a process to its current RSS (Linux clear_refs). */
function resetPeak(pid: number) {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

// ---------------------------------------------------------------------------------------------
// client

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function putPart(url: string, file: string, start: number, end: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: "PUT", agent, headers: { "content-length": end - start + 1 } }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => (res.statusCode === 200 ? resolve(String(res.headers.etag)) : reject(new Error(`part PUT answered ${res.statusCode}: ${body.slice(0, 200)}`))));
    });
    req.on("error", reject);
    fs.createReadStream(file, { start, end, highWaterMark: MiB }).pipe(req);
  });
}

async function putParts(urls: string[], partSize: number, file: string, size = SIZE): Promise<string[]> {
  const etags: string[] = new Array(urls.length);
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      const i = next++;
      etags[i] = await putPart(urls[i], file, i * partSize, Math.min(size, (i + 1) * partSize) - 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return etags;
}

type Result = { seconds: number; partsSeconds: number; completeSeconds: number; rssGrowthMb: number; md5: string | null; cpu: { total: number; main: number } | null; clientCpu: number };

/** CPU seconds this process (the client: reading the source, sending the parts) has used so far. */
function clientCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

async function upload(server: Server, keys: { accessKeyId: string; secretAccessKey: string }, source: string, kind: "embedded" | "s3rver", run: number): Promise<Result> {
  const client = makeS3Client({ endpoint: server.endpoint, region: "us-east-1", bucket: "easel", forcePathStyle: true, credentials: keys, embedded: kind === "embedded" });
  if (kind === "embedded") await ensureBucket(client, "easel");
  const driver: StorageDriver = createS3Driver(async () => ({ client, bucket: "easel" }), systemClock);
  // Warm the server (JIT, first file system calls, the embedded store's write worker, the buffers
  // of CONCURRENCY requests in flight at once) with a small upload of the same shape, CONCURRENCY
  // parallel part PUTs, so that the growth measured is what the upload's size adds.
  const pid = server.child.pid as number;
  const coldRss = rssKb(pid, "VmRSS");
  const warmupSize = CONCURRENCY * 8 * MiB;
  const warm = await driver.prepareUpload({ key: `warmup-${run}`, size: warmupSize, contentType: "application/octet-stream", expiresAt: new Date(Date.now() + 3600e3) });
  const warmEtags = await putParts(warm.partUrls as string[], warm.partSize as number, source, warmupSize);
  if (kind === "embedded") await driver.completeMultipart({ key: `warmup-${run}`, uploadId: warm.multipartUploadId as string, expectedParts: warmEtags.length });
  else await client.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: `warmup-${run}`, UploadId: warm.multipartUploadId as string, MultipartUpload: { Parts: warmEtags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) } }));
  syncDisk();
  const rssBefore = rssKb(pid, "VmRSS");
  if (run === 1) console.log(`${kind}: server RSS ${(coldRss / 1024).toFixed(0)} MB at start, ${(rssBefore / 1024).toFixed(0)} MB after a ${warmupSize / MiB} MiB warm-up upload of the same shape (${CONCURRENCY} parallel part PUTs)`);
  resetPeak(pid);
  const cpuBefore = cpuSeconds(pid);
  const clientBefore = clientCpuSeconds();

  const key = `bench/run-${run}.bin`;
  const started = performance.now();
  const prepared = await driver.prepareUpload({ key, size: SIZE, contentType: "application/octet-stream", expiresAt: new Date(Date.now() + 3600e3) });
  const partsStarted = performance.now();
  const etags = await putParts(prepared.partUrls as string[], prepared.partSize as number, source);
  const completeStarted = performance.now();
  let md5: string | null = null;
  if (kind === "embedded") {
    await driver.completeMultipart({ key, uploadId: prepared.multipartUploadId as string, expectedParts: etags.length });
    md5 = await driver.md5(key);
  } else {
    // s3rver has no ListParts: complete with the ETags the part PUTs answered.
    await client.send(new CompleteMultipartUploadCommand({ Bucket: "easel", Key: key, UploadId: prepared.multipartUploadId as string, MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) } }));
  }
  const done = performance.now();
  const clientCpu = clientCpuSeconds() - clientBefore;
  const rssGrowthMb = (rssKb(pid, "VmHWM") - rssBefore) / 1024;
  const cpuAfter = cpuSeconds(pid);
  await driver.delete(key);
  await driver.delete(`warmup-${run}`);
  const cpu = { total: cpuAfter.total - cpuBefore.total, main: cpuAfter.main - cpuBefore.main };
  return { seconds: (done - started) / 1000, partsSeconds: (completeStarted - partsStarted) / 1000, completeSeconds: (done - completeStarted) / 1000, rssGrowthMb, md5, cpu, clientCpu };
}

type EaselTarget = { url: string; token: string; slug: string; pid: number | null; node: EaselNode | null };

/**
 * The Easel the bench uploads through: the one named by --easel-url, else this checkout's build
 * started as `npm start` runs it (jobs off, so only the upload is measured), else none.
 */
async function easelTarget(dir: string): Promise<EaselTarget | null> {
  if (args["no-easel"]) return null;
  if (args["easel-url"]) return { url: args["easel-url"], token: args.token, slug: args.slug, pid: args["server-pid"] ? Number(args["server-pid"]) : null, node: null };
  let appDir: string;
  try {
    appDir = builtAppDir();
  } catch (err) {
    console.log(`(no upload through Easel: ${(err as Error).message})`);
    return null;
  }
  const env = { EASEL_DATA_DIR: path.join(dir, "easel-data"), EASEL_JOBS_DISABLED: "1", DATABASE_URL: undefined };
  const node = startNode(appDir, env, await freePort());
  try {
    await waitFor200(node);
    await cli(env, "workspace", "create", "bench", "--plan", "enterprise");
    const token = await cli(env, "token", "create", "bench", "--scopes", "read,write");
    return { url: node.origin, token, slug: "bench", pid: node.child.pid as number, node };
  } catch (err) {
    await stopNode(node);
    throw err;
  }
}

/** The same upload through Easel's HTTP API, as clients make it (after a warm-up of the same shape, as for the other servers). */
async function uploadThroughEasel(target: EaselTarget, source: string, sourceMd5: string, run: number): Promise<Result> {
  const call = async (method: string, path: string, body?: unknown): Promise<Record<string, unknown>> =>
    (await api(target.url, target.token, method, `/v1/${target.slug}${path}`, body)).body?.data ?? {};
  const once = async (size: number, title: string) => {
    const started = performance.now();
    const prepared = await call("POST", "/assets/upload_prepare", { asset: { title, media_type: "application/octet-stream", size } });
    const partsStarted = performance.now();
    await putParts(prepared.part_urls as string[], prepared.part_size as number, source, size);
    const completeStarted = performance.now();
    const asset = await call("POST", "/assets/upload_complete", { asset: { signed_storage_id: prepared.signed_storage_id, multipart_upload_id: prepared.multipart_upload_id } });
    const done = performance.now();
    return { asset, seconds: (done - started) / 1000, partsSeconds: (completeStarted - partsStarted) / 1000, completeSeconds: (done - completeStarted) / 1000 };
  };
  const warm = await once(CONCURRENCY * 8 * MiB, `warm-up ${run}`);
  await call("DELETE", `/assets/${String(warm.asset.token)}`);
  syncDisk();
  const pid = target.pid;
  const rssBefore = pid ? rssKb(pid, "VmRSS") : NaN;
  if (pid) resetPeak(pid);
  const cpuBefore = pid ? cpuSeconds(pid) : null;
  const clientBefore = clientCpuSeconds();
  const measured = await once(SIZE, `bench ${run}`);
  const clientCpu = clientCpuSeconds() - clientBefore;
  const rssGrowthMb = pid ? (rssKb(pid, "VmHWM") - rssBefore) / 1024 : NaN;
  const cpu = pid && cpuBefore ? (({ total, main }) => ({ total: total - cpuBefore.total, main: main - cpuBefore.main }))(cpuSeconds(pid)) : null;
  if (measured.asset.md5 !== sourceMd5) throw new Error(`Easel recorded md5 ${String(measured.asset.md5)}, the source's is ${sourceMd5}`);
  await call("DELETE", `/assets/${String(measured.asset.token)}`);
  const { seconds, partsSeconds, completeSeconds } = measured;
  return { seconds, partsSeconds, completeSeconds, rssGrowthMb, md5: String(measured.asset.md5), cpu, clientCpu };
}

// ---------------------------------------------------------------------------------------------

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mbps = (seconds: number) => SIZE / MiB / seconds;

async function main() {
  const dir = args.dir ? path.resolve(args.dir) : fs.mkdtempSync(path.join(os.tmpdir(), "easel-bench-upload-"));
  fs.mkdirSync(dir, { recursive: true });
  const source = path.join(dir, "source.bin");
  console.log(`bench/upload: ${SIZE / MiB} MiB, ${CONCURRENCY} parallel part PUTs, ${RUNS} runs, dir ${dir} (${os.cpus().length} CPUs, node ${process.version})`);
  const sourceMd5 = makeSource(source);
  const md5Speed = md5MiBps();
  const keys = { accessKeyId: "EASELBENCH", secretAccessKey: crypto.randomBytes(24).toString("base64url") };

  const embeddedDir = path.join(dir, "embedded");
  const s3rverDir = path.join(dir, "s3rver");
  const embedded = await startServer("embedded", embeddedDir, keys);
  const s3rver = await startServer("s3rver", s3rverDir, S3RVER_CREDENTIALS);
  const rows: { dd: number; embedded: Result; s3rver: Result; easel: Result | null; load: number }[] = [];
  let easel: EaselTarget | null = null;
  try {
    easel = await easelTarget(dir);
    for (let run = 1; run <= RUNS; run++) {
      // The machine may be shared: each run says how busy it was (1-minute load average).
      const load = os.loadavg()[0];
      const dd = await runDd(source, dir);
      const e = await upload(embedded, keys, source, "embedded", run);
      if (e.md5 !== sourceMd5) throw new Error(`embedded store md5 ${e.md5} differs from the source's ${sourceMd5}`);
      const s = await upload(s3rver, S3RVER_CREDENTIALS, source, "s3rver", run);
      const n = easel ? await uploadThroughEasel(easel, source, sourceMd5, run) : null;
      rows.push({ dd: dd.seconds, embedded: e, s3rver: s, easel: n, load });
      // Server and client share the machine's cores: their CPU together bounds the throughput.
      const cpu = (r: Result) =>
        r.cpu
          ? `, CPU ${r.cpu.total.toFixed(1)} s (main thread ${r.cpu.main.toFixed(1)} s), client ${r.clientCpu.toFixed(1)} s: ${(r.cpu.total + r.clientCpu).toFixed(1)} s of ${(os.cpus().length * r.seconds).toFixed(1)} core-seconds`
          : "";
      console.log(
        `run ${run} (load ${load.toFixed(1)} -> ${os.loadavg()[0].toFixed(1)}): dd ${mbps(dd.seconds).toFixed(0)} MB/s (CPU ${dd.cpu.toFixed(1)} s)\n` +
          `  embedded ${mbps(e.seconds).toFixed(0)} MB/s (parts ${e.partsSeconds.toFixed(2)} s, complete+md5 ${e.completeSeconds.toFixed(2)} s, RSS +${e.rssGrowthMb.toFixed(1)} MB${cpu(e)})\n` +
          `  s3rver ${mbps(s.seconds).toFixed(0)} MB/s (parts ${s.partsSeconds.toFixed(2)} s, complete ${s.completeSeconds.toFixed(2)} s, RSS +${s.rssGrowthMb.toFixed(1)} MB${cpu(s)})` +
          (n ? `\n  Easel (API + /storage/s3) ${mbps(n.seconds).toFixed(0)} MB/s (parts ${n.partsSeconds.toFixed(2)} s, upload_complete ${n.completeSeconds.toFixed(2)} s, RSS +${n.rssGrowthMb.toFixed(1)} MB${cpu(n)})` : ""),
      );
    }
  } finally {
    embedded.child.kill();
    s3rver.child.kill();
    if (easel?.node) await stopNode(easel.node);
    agent.destroy();
  }
  const dd = mbps(median(rows.map((r) => r.dd)));
  const emb = mbps(median(rows.map((r) => r.embedded.seconds)));
  const s3r = mbps(median(rows.map((r) => r.s3rver.seconds)));
  const rss = Math.max(...rows.map((r) => r.embedded.rssGrowthMb));
  const loads = rows.map((r) => r.load);
  console.log(`\nmedian of runs (MB = MiB; load average ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} at the runs' starts):`);
  console.log(`  dd conv=fdatasync        ${dd.toFixed(0)} MB/s`);
  console.log(`  embedded store           ${emb.toFixed(0)} MB/s   = ${(emb / dd).toFixed(2)} x dd (target >= 0.8), ${(emb / s3r).toFixed(2)} x s3rver (target >= 2)`);
  console.log(`  s3rver                   ${s3r.toFixed(0)} MB/s`);
  console.log(`  embedded peak RSS growth ${rss.toFixed(1)} MB (target < 64)`);
  // How much of the machine server and client kept busy: near 100 %, the upload is CPU-bound.
  const busy = (rs: Result[]) => `${(100 * median(rs.map((r) => (r.cpu ? (r.cpu.total + r.clientCpu) / (os.cpus().length * r.seconds) : NaN)))).toFixed(0)} %`;
  console.log(`  cores busy (server + client CPU / core-seconds, median): embedded ${busy(rows.map((r) => r.embedded))}, s3rver ${busy(rows.map((r) => r.s3rver))}`);
  const viaEasel = rows.flatMap((r) => (r.easel ? [r.easel] : []));
  if (viaEasel.length) {
    const n = mbps(median(viaEasel.map((r) => r.seconds)));
    console.log(`  Easel (API + /storage/s3) ${n.toFixed(0)} MB/s  = ${(n / dd).toFixed(2)} x dd, ${(n / s3r).toFixed(2)} x s3rver; peak RSS growth ${Math.max(...viaEasel.map((r) => r.rssGrowthMb)).toFixed(1)} MB; cores busy ${busy(viaEasel)}`);
  }
  // Two md5 passes per byte, whatever else a store does: the bound on this machine's cores.
  const bound = (md5Speed / 2) * os.cpus().length;
  console.log(`  md5 on one core          ${md5Speed.toFixed(0)} MB/s: two passes per byte (part ETag, object md5) cap any store at ${bound.toFixed(0)} MB/s on ${os.cpus().length} cores doing nothing else (${(bound / dd).toFixed(2)} x dd)`);
  if (!args.dir) fs.rmSync(dir, { recursive: true, force: true });
}

await main();
