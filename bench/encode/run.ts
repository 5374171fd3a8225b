/**
 * bench/encode — the single-pass ladder against the per-rung commands it replaced, and (optionally)
 * the whole video pipeline against the bare encoder. A 60 s 1080p30 clip with real motion
 * (testsrc2 + temporal noise, AAC tone) is encoded:
 *   old   the per-rung commands Easel ran before (bench/encode/per-rung-args.ts: one ffmpeg per
 *         rung, each decoding the source), one after another on a local file, nothing else;
 *   new   the single pass of the job (lib/encode/ffmpeg-args.ts, ladderArgs: one decode, `split`
 *         to every rung), bare on the same file;
 *   job   (BENCH_JOB=1) upload_complete → processing job → encode job (claim, probe, ladder with
 *         its uploads, publish) → stream_url set, on the embedded executor, PGlite in memory and
 *         the embedded object store.
 * Prints, side by side, wall and CPU time (this process and its children, from /proc: robust when
 * other work shares the cores), the ratio old / new, each one's speed as a multiple of real time,
 * the new pass's peak memory, and SSIM of every rung old and new (ffmpeg's `ssim` filter against
 * the source scaled to the rung the same way). Rounds alternate old and new so that drifting load
 * affects both; the best wall time of each side counts.
 *   npx tsx bench/encode/run.ts
 *   BENCH_SECONDS=60 BENCH_SIZE=1920x1080 BENCH_SOURCE_RATE=20M (source bit rate, like a phone's; 0 = uncapped)
 *   BENCH_ROUNDS=1 BENCH_JOB=0 BENCH_KEEP=1 (keep the outputs)
 *   BENCH_X264_PARAMS, BENCH_FILTER_THREADS: try another tuning of the new pass
 */
import { execFileSync, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/pglite";
import { serve } from "inngest/next";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const SIZE = process.env.BENCH_SIZE ?? "1920x1080";
const RATE = process.env.BENCH_SOURCE_RATE ?? "20M";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const WITH_JOB = process.env.BENCH_JOB === "1";
const work = fs.mkdtempSync(path.join(os.tmpdir(), "easel-bench-encode-"));
// Set before any Easel module reads its environment.
process.env.EASEL_DATA_DIR = path.join(work, "data");
process.env.NEXT_TELEMETRY_DISABLED = "1";

const { systemClock } = await import("../../lib/clock");
const { migratePgliteDb } = await import("../../lib/db/migrate");
const schema = await import("../../lib/db/schema");
const { setDeps } = await import("../../lib/deps");
const { resetEnvCache } = await import("../../lib/env");
const { createApiToken } = await import("../../lib/auth/api-tokens");
const { createWorkspace } = await import("../../lib/workspaces/manage-workspaces");
const { encodeVideoJob } = await import("../../lib/encode/encode-video.job");
const { processAssetJob } = await import("../../lib/media/process-asset.job");
const { ladderArgs, LADDER_TUNING } = await import("../../lib/encode/ffmpeg-args");
const { INIT_NAME, PLAYLIST_NAME } = await import("../../lib/encode/keys");
const { parseMediaPlaylist } = await import("../../lib/encode/playlists");
const { perRungArgs } = await import("./per-rung-args");
const { planLadder } = await import("../../lib/encode/ladder");
const { probeSource } = await import("../../lib/encode/probe-source");
const { binaries } = await import("../../lib/media/ffmpeg");
const { inngest, useSigningKey } = await import("../../lib/jobs/client");
const { Executor, inProcessTransport, signingKeyFromSecret } = await import("../../lib/jobs/executor");
const { inngestJobSender } = await import("../../lib/jobs/send");
const { serveS3 } = await import("../../lib/objectstore");
const { listen } = await import("../../lib/objectstore/testing/node-server");
const { getSecret } = await import("../../lib/secrets");
const { storageFor } = await import("../../lib/storage");
const prepareRoute = await import("../../app/v1/[slug]/assets/upload_prepare/route");
const completeRoute = await import("../../app/v1/[slug]/assets/upload_complete/route");

const secs = (ms: number) => (ms / 1000).toFixed(1);

/** CPU seconds used so far by this process (node) and by the children it has waited for (ffmpeg, ffprobe). */
function cpu(): { self: number; children: number } {
  const fields = fs.readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
  // utime, stime, cutime, cstime: fields 14-17 of stat(5), here offset by the two consumed.
  const at = (i: number) => Number(fields[i]) / 100;
  return { self: at(11) + at(12), children: at(13) + at(14) };
}
const cpuSeconds = () => {
  const c = cpu();
  return c.self + c.children;
};

/** The source clip, cached across runs (making it costs about as much as encoding it). */
function sourceClip(): string {
  const file = path.join(os.tmpdir(), `easel-bench-source-${SIZE}-${SECONDS}s-${RATE}.mp4`);
  if (fs.existsSync(file)) return file;
  console.log(`making the ${SECONDS} s ${SIZE} source (cached in ${file})…`);
  execFileSync(binaries().ffmpeg, [
    "-nostdin", "-v", "error", "-y",
    "-f", "lavfi", "-i", `testsrc2=size=${SIZE}:rate=30:duration=${SECONDS},noise=alls=8:allf=t`,
    "-f", "lavfi", "-i", `sine=frequency=440:duration=${SECONDS}`,
    "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", ...(RATE === "0" ? [] : ["-maxrate", RATE, "-bufsize", RATE]),
    "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", `${file}.part.mp4`,
  ]);
  fs.renameSync(`${file}.part.mp4`, file);
  return file;
}

type Encoded = { ms: number; cpu: number; dir: string; rungs: import("../../lib/encode/ladder").Rung[]; peakMb?: number };

/** The old ladder: one ffmpeg per rung, one after another. */
async function perRung(file: string, round: number): Promise<Encoded> {
  const source = await probeSource(file);
  const rungs = planLadder(source);
  const dir = path.join(work, `old-${round}`);
  const t0 = performance.now();
  const c0 = cpuSeconds();
  for (const rung of rungs) {
    const out = path.join(dir, rung.name);
    fs.mkdirSync(out, { recursive: true });
    execFileSync(binaries().ffmpeg, perRungArgs(file, source, rung, out));
  }
  return { ms: performance.now() - t0, cpu: cpuSeconds() - c0, dir, rungs };
}

/** The new ladder: the job's single pass, bare (under /usr/bin/time for its peak memory). */
async function singlePass(file: string, round: number): Promise<Encoded> {
  const source = await probeSource(file);
  const rungs = planLadder(source);
  const dir = path.join(work, `new-${round}`);
  for (const rung of rungs) fs.mkdirSync(path.join(dir, rung.name), { recursive: true });
  const tuning = {
    ...LADDER_TUNING,
    ...(process.env.BENCH_X264_PARAMS !== undefined ? { x264Params: process.env.BENCH_X264_PARAMS } : {}),
    ...(process.env.BENCH_FILTER_THREADS ? { filterThreads: Number(process.env.BENCH_FILTER_THREADS) } : {}),
  };
  const memFile = path.join(work, `new-${round}.mem`);
  const t0 = performance.now();
  const c0 = cpuSeconds();
  execFileSync("/usr/bin/time", ["-f", "%M", "-o", memFile, binaries().ffmpeg, ...ladderArgs(file, source, rungs, dir, 0, tuning)]);
  const ms = performance.now() - t0;
  const cpu = cpuSeconds() - c0;
  return { ms, cpu, dir, rungs, peakMb: Number(fs.readFileSync(memFile, "utf8").trim().split("\n").pop()) / 1024 };
}

/** SSIM (All) of one rung's HLS output against the source scaled to the rung as the encode scales it. */
function ssimOf(file: string, dir: string, rung: import("../../lib/encode/ladder").Rung): number {
  const playlist = parseMediaPlaylist(fs.readFileSync(path.join(dir, rung.name, PLAYLIST_NAME), "utf8"));
  // Init segment and fragments back to back: one fragmented MP4 that ffmpeg reads like any file.
  const joined = path.join(dir, `${rung.name}.mp4`);
  fs.writeFileSync(joined, Buffer.concat([INIT_NAME, ...playlist.segments.map((s) => s.uri)].map((n) => fs.readFileSync(path.join(dir, rung.name, n)))));
  const graph = `[1:v]scale=${rung.width}:${rung.height}:flags=bicubic,setsar=1,format=yuv420p[ref];[0:v]setsar=1,format=yuv420p[enc];[enc][ref]ssim`;
  const { stderr } = spawnSync(binaries().ffmpeg, ["-nostdin", "-hide_banner", "-i", joined, "-i", file, "-lavfi", graph, "-f", "null", "-"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const all = /SSIM .*All:([0-9.]+)/.exec(stderr)?.[1];
  if (!all) throw new Error(`no SSIM for ${rung.name}: ${stderr.slice(-500)}`);
  return Number(all);
}

async function job(file: string) {
  const pg = await PGlite.create();
  const db = drizzle(pg, { schema }) as never as import("../../lib/db").Db;
  await migratePgliteDb(db as never);
  const deps = { db, clock: systemClock, jobs: inngestJobSender(inngest), storage: (kind: "s3" | "gcs", baseUrl: string) => storageFor(kind, { baseUrl, db, clock: systemClock }) };
  setDeps(deps);
  await useSigningKey(inngest, db);
  const handlers = serve({ client: inngest, functions: [processAssetJob, encodeVideoJob], enableUnauthedSync: false });
  const server = await listen(async (req) => {
    const url = new URL(req.url);
    if (url.pathname.startsWith("/storage/s3")) return serveS3(req);
    return new Response("not found", { status: 404 });
  });
  // Jobs reach the embedded store the way a server does: on its public origin.
  process.env.EASEL_PUBLIC_URL = server.origin;
  resetEnvCache();
  const executor = new Executor({
    db,
    clock: systemClock,
    signingKey: signingKeyFromSecret(await getSecret(db, "jobs_signing_key")),
    serveUrl: `${server.origin}/api/inngest`,
    transport: inProcessTransport(handlers),
    log: { info: () => undefined, warn: console.warn, error: console.error },
  });
  await executor.sync();
  executor.start();

  const ws = await createWorkspace(db, { slug: "bench-video", plan: "team", storage: "s3", now: new Date() });
  const { token } = await createApiToken(db, { workspaceId: ws.id, name: "bench", scopes: ["read", "write"], webhooks: false, now: new Date() });
  const bytes = fs.readFileSync(file);
  const routeCall = async (route: { POST: (r: Request, c: never) => Promise<Response> }, p: string, body: unknown) => {
    const req = new Request(`${server.origin}/v1/${ws.slug}/assets/${p}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    const res = await route.POST(req, { params: Promise.resolve({ slug: ws.slug }) } as never);
    if (res.status !== 200) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: Record<string, never> }).data;
  };
  const md5 = crypto.createHash("md5").update(bytes).digest("hex");
  const prep = await routeCall(prepareRoute, "upload_prepare", { asset: { title: "bench", media_type: "video/mp4", size: bytes.length, md5 } });
  const uploadStart = performance.now();
  const urls: string[] = prep.part_urls ?? [prep.upload_url];
  const partSize: number = prep.part_size ?? bytes.length;
  await Promise.all(urls.map((u, i) => fetch(u, { method: "PUT", body: bytes.subarray(i * partSize, (i + 1) * partSize) }).then((r) => { if (!r.ok) throw new Error(`part ${i + 1}: ${r.status}`); })));
  const uploadMs = performance.now() - uploadStart;

  const t0 = performance.now();
  const c0 = cpu();
  const asset = await routeCall(completeRoute, "upload_complete", { asset: { signed_storage_id: prep.signed_storage_id, multipart_upload_id: prep.multipart_upload_id ?? undefined } });
  let row;
  for (;;) {
    [row] = await db.select().from(schema.assets).where(eq(schema.assets.id, asset.id as number));
    if (row.encodeStatus === "ready" || row.encodeStatus === "failed") break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const ms = performance.now() - t0;
  const c1 = cpu();
  const split = { node: c1.self - c0.self, ffmpeg: c1.children - c0.children };
  if (row.encodeStatus !== "ready") throw new Error(`encode failed: ${row.encodeError}`);
  await executor.stop();
  await server.close();
  await pg.close();
  return { ms, cpu: split.node + split.ffmpeg, split, uploadMs };
}

const file = sourceClip();
const realTime = (ms: number) => `${(SECONDS / (ms / 1000)).toFixed(2)}×`;
console.log(`bench/encode: ${SECONDS} s ${SIZE} source at ${RATE === "0" ? "uncapped rate" : `≤ ${RATE}b/s`}, ${(fs.statSync(file).size / 1e6).toFixed(1)} MB, ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}, ffmpeg ${binaries().ffmpeg}`);
const olds: Encoded[] = [];
const news: Encoded[] = [];
const jobs: Awaited<ReturnType<typeof job>>[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const o = await perRung(file, round);
  olds.push(o);
  console.log(`round ${round} old, one ffmpeg per rung (${o.rungs.map((r) => r.name).join(", ")}): ${secs(o.ms)} s wall, ${o.cpu.toFixed(1)} s CPU  (load ${os.loadavg()[0].toFixed(1)})`);
  const n = await singlePass(file, round);
  news.push(n);
  console.log(`round ${round} new, single pass: ${secs(n.ms)} s wall, ${n.cpu.toFixed(1)} s CPU, peak ${n.peakMb!.toFixed(0)} MB  (load ${os.loadavg()[0].toFixed(1)})`);
  if (WITH_JOB) {
    const j = await job(file);
    jobs.push(j);
    console.log(`round ${round} full job, upload_complete → stream_url: ${secs(j.ms)} s wall, ${j.cpu.toFixed(1)} s CPU (${j.split.ffmpeg.toFixed(1)} s ffmpeg/ffprobe, ${j.split.node.toFixed(1)} s node)  (upload before it: ${secs(j.uploadMs)} s; load ${os.loadavg()[0].toFixed(1)})`);
  }
}
const best = <T extends { ms: number }>(xs: T[]) => xs.reduce((a, b) => (b.ms < a.ms ? b : a));
const o = best(olds);
const n = best(news);
console.log("");
console.log(`                         wall       CPU   real time`);
console.log(`old (one ffmpeg a rung)  ${secs(o.ms).padStart(6)} s  ${o.cpu.toFixed(1).padStart(6)} s  ${realTime(o.ms).padStart(7)}`);
console.log(`new (single pass)        ${secs(n.ms).padStart(6)} s  ${n.cpu.toFixed(1).padStart(6)} s  ${realTime(n.ms).padStart(7)}`);
console.log(`ratio old / new: wall ${(o.ms / n.ms).toFixed(2)}×, CPU ${(o.cpu / n.cpu).toFixed(2)}×  (goal ≥ 1.5× wall)`);
console.log("");
console.log("SSIM against the source   old      new      new − old");
for (const rung of n.rungs) {
  const a = ssimOf(file, o.dir, rung);
  const b = ssimOf(file, n.dir, rung);
  console.log(`${rung.name.padEnd(24)}  ${a.toFixed(4)}   ${b.toFixed(4)}   ${(b - a >= 0 ? "+" : "") + (b - a).toFixed(4)}${Math.abs(b - a) > 0.005 ? "  (over 0.005)" : ""}`);
}
if (WITH_JOB) {
  const j = best(jobs);
  console.log(`job:  ${secs(j.ms)} s = ${realTime(j.ms)} real time; ratio job / new bare: wall ${(j.ms / n.ms).toFixed(3)}×, CPU ${(j.cpu / n.cpu).toFixed(3)}×`);
}
console.log(`load at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
if (!process.env.BENCH_KEEP) fs.rmSync(work, { recursive: true, force: true });
process.exit(0);
