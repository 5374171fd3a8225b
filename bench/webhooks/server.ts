/**
 * bench/webhooks --server — fan-out and steady delivery through a built server (`npm start`), as users run
 * it: the server's own embedded executor, events caused by API writes (a PATCH of an asset's
 * title emits asset_updated), receivers on 127.0.0.1.
 *   npm run build && npm run bench -- webhooks --server                     embedded database (scratch data dir)
 *   DATABASE_URL=postgres://…/postgres npm run bench -- webhooks --server   a database of its own on that server
 *   BENCH_TRIGGERS=1000 BENCH_RATE=100 BENCH_SECONDS=30 BENCH_STEADY_TRIGGERS=10 BENCH_DRAIN_SECONDS=120
 *   BENCH_PHASES=fanout,steady (either or both)
 *   EASEL_JOBS_CONCURRENCY is passed on to the server when set; EASEL_APP_DIR names another built checkout.
 * Baseline in the same run: as many signed POSTs to the same receiver made straight from this
 * process, 16 at a time, a new connection each (what a delivery costs with no job runner or database).
 * The server's CPU (its process tree, from /proc) is printed per delivery with each phase.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { signDelivery } from "../../lib/webhooks/sign";
import { cpuMs } from "../memory/rss";
import { api, builtAppDir, cli, freePort, scratchDatabase, startNode, stopNode, waitFor200 } from "../scale/cluster";
import { percentile, startReceiver } from "./receiver";

const TRIGGERS = Number(process.env.BENCH_TRIGGERS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const STEADY_TRIGGERS = Number(process.env.BENCH_STEADY_TRIGGERS ?? 10);
const DRAIN_MS = Number(process.env.BENCH_DRAIN_SECONDS ?? 120) * 1000;
const FANOUT_MS = 600_000;
const BASELINE_CONCURRENCY = 16;
const PHASES = (process.env.BENCH_PHASES ?? "fanout,steady").split(",");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const load = () => `load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`;

/** POSTs one signed body to each URL, `concurrency` at a time, each on a new connection. */
async function deliverDirectly(urls: string[], concurrency: number): Promise<void> {
  const body = JSON.stringify({ event: "asset_updated", asset: { id: 0, title: "baseline" } });
  let next = 0;
  const post = (url: string) =>
    new Promise<void>((resolve, reject) => {
      const headers = signDelivery(`whsec_${Buffer.alloc(32, 7).toString("base64")}`, `msg_${next}`, new Date(), body);
      const req = http.request(url, { method: "POST", agent: false, headers: { "content-type": "application/json", ...headers } }, (res) => {
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", reject);
      req.end(body);
    });
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < urls.length) await post(urls[next++]);
  }));
}

async function main() {
  const appDir = builtAppDir();
  const serverUrl = process.env.DATABASE_URL ?? process.env.BENCH_DATABASE_URL;
  const scratchDb = serverUrl ? await scratchDatabase(serverUrl, "bench_webhooks") : null;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-bench-webhooks-server-"));
  const nodeEnv: Record<string, string | undefined> = {
    DATABASE_URL: scratchDb?.url,
    EASEL_DATA_DIR: dataDir,
    EASEL_WEBHOOK_ALLOW_PRIVATE: "1",
    EASEL_RATE_LIMIT_PER_MIN: "100000000",
    EASEL_JOBS_CONCURRENCY: process.env.EASEL_JOBS_CONCURRENCY,
  };
  const node = startNode(appDir, nodeEnv, await freePort());
  const receiver = await startReceiver();
  try {
    await waitFor200(node);
    const run = (...args: string[]) => cli(nodeEnv, ...args);
    await run("workspace", "create", "bench", "--plan", "enterprise");
    const token = await run("token", "create", "bench", "--scopes", "read,write", "--webhooks");
    const call = (method: string, pathname: string, body?: unknown) => api(node.origin, token, method, pathname, body);
    const newBoard = async (title: string) => (await call("POST", "/v1/bench/boards", { board: { title } })).body.data.token as string;
    const uploadTo = async (board: string, i: number) => {
      const bytes = Buffer.from(`bench asset ${i}\n`);
      const prep = await call("POST", "/v1/bench/assets/upload_prepare", { asset: { title: `Bench ${i}`, media_type: "text/plain", size: bytes.length } });
      const put = await fetch(prep.body.data.upload_url, { method: "PUT", body: bytes, headers: { "content-type": "text/plain" } });
      if (put.status !== 200) throw new Error(`upload PUT → ${put.status}`);
      const done = await call("POST", "/v1/bench/assets/upload_complete", { asset: { signed_storage_id: prep.body.data.signed_storage_id, collection_token: board } });
      return done.body.data.token as string;
    };
    const addTriggers = async (board: string, n: number, prefix: string) => {
      for (let i = 0; i < n; i++) {
        await call("POST", "/v1/trigger", { hook: "asset_updated", hook_url: receiver.url(`/${prefix}/${i}`), organization_slug: "bench", collection_token: board });
      }
    };
    const rename = (asset: string, title: string) => call("PATCH", `/v1/bench/assets/${asset}`, { asset: { title } });
    console.log(`bench/webhooks --server: ${scratchDb ? "postgres" : "pglite (embedded)"}, server of ${appDir}; ${load()}`);

    // 0. Baseline: the same number of signed POSTs, made directly.
    const b0 = performance.now();
    await deliverDirectly(Array.from({ length: TRIGGERS }, (_, i) => receiver.url(`/direct/${i}`)), BASELINE_CONCURRENCY);
    const directMs = performance.now() - b0;
    console.log(`direct    ${TRIGGERS} signed POSTs from this process, ${BASELINE_CONCURRENCY} at a time: ${(directMs / 1000).toFixed(2)} s (${((TRIGGERS / directMs) * 1000).toFixed(1)}/s)`);

    if (PHASES.includes("fanout")) {
      // 1. One event to many triggers.
      const fanBoard = await newBoard("Fan-out");
      const fanAsset = await uploadTo(fanBoard, 0);
      await addTriggers(fanBoard, TRIGGERS, "fan");
      await sleep(2000); // the upload's own jobs (processing, asset_added fan-out to no trigger) settle first
      receiver.arrivals.length = 0;
      const cpu0 = cpuMs(node.child.pid!);
      const t0 = performance.now();
      await rename(fanAsset, "Fanned out");
      const reachedAll = () => new Set(receiver.arrivals.filter((a) => a.path.startsWith("/fan/")).map((a) => a.path)).size >= TRIGGERS;
      await receiver.until(reachedAll, t0 + FANOUT_MS);
      const fanCpu = cpuMs(node.child.pid!) - cpu0;
      const fan = receiver.arrivals.filter((a) => a.path.startsWith("/fan/")).map((a) => a.at - t0).sort((a, b) => a - b);
      const lastMs = fan.at(-1) ?? NaN;
      console.log(
        `fan-out   ${TRIGGERS} triggers, 1 event: ${fan.length}/${TRIGGERS} delivered; first ${(fan[0] / 1000).toFixed(2)} s, median ${(percentile(fan, 50) / 1000).toFixed(2)} s, ` +
          `last ${(lastMs / 1000).toFixed(2)} s (${((fan.length / lastMs) * 1000).toFixed(1)}/s = ${(fan.length / lastMs / (TRIGGERS / directMs)).toFixed(2)} x direct; ` +
          `server CPU ${(fanCpu / Math.max(1, fan.length)).toFixed(1)} ms per delivery)`,
      );
      console.log(`          ${load()}`);
    }

    if (PHASES.includes("steady")) {
      // 2. A steady stream of events (one PATCH each) to a few triggers.
      const steadyBoard = await newBoard("Steady");
      const events = RATE * SECONDS;
      const assets: string[] = [];
      for (let i = 0; i < Math.min(events, 200); i++) assets.push(await uploadTo(steadyBoard, i + 1));
      await addTriggers(steadyBoard, STEADY_TRIGGERS, "steady");
      await sleep(3000);
      receiver.arrivals.length = 0;
      const sentAt: number[] = [];
      const writes: Promise<unknown>[] = [];
      const cpu1 = cpuMs(node.child.pid!);
      const s0 = performance.now();
      for (let i = 0; i < events; i++) {
        const wait = s0 + (i * 1000) / RATE - performance.now();
        if (wait > 0) await sleep(wait);
        sentAt[i] = performance.now();
        // The title carries the event's number, so each delivery is matched to the write that caused it.
        writes.push(rename(assets[i % assets.length], `steady ${i}`));
      }
      await Promise.all(writes);
      const sendEnd = performance.now();
      const expected = events * STEADY_TRIGGERS;
      const steady = () => receiver.arrivals.filter((a) => a.path.startsWith("/steady/"));
      await receiver.until(() => steady().length >= expected, sendEnd + DRAIN_MS);
      const steadyCpu = cpuMs(node.child.pid!) - cpu1;
      const arrivals = steady();
      const latencies = arrivals.map((a) => a.at - sentAt[Number(/^steady (\d+)$/.exec(a.title)?.[1])]).filter(Number.isFinite).sort((a, b) => a - b);
      const last = arrivals.length ? Math.max(...arrivals.map((a) => a.at)) : performance.now();
      console.log(
        `steady    ${RATE} events/s for ${SECONDS} s to ${STEADY_TRIGGERS} triggers (the writes took ${((sendEnd - s0) / 1000).toFixed(1)} s): ${arrivals.length}/${expected} delivered` +
          `${arrivals.length < expected ? ` (${expected - arrivals.length} still queued after ${DRAIN_MS / 1000} s)` : ""}`,
      );
      console.log(
        `          event→delivery p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms; throughput ${((arrivals.length / (last - s0)) * 1000).toFixed(1)} deliveries/s; ` +
          `server CPU ${(steadyCpu / Math.max(1, arrivals.length)).toFixed(1)} ms per delivery (the API writes included)`,
      );
      console.log(`          ${load()}`);
    }
  } catch (err) {
    console.error(node.log());
    throw err;
  } finally {
    await stopNode(node);
    await receiver.close();
    await scratchDb?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
