/**
 * bench/scale: API throughput of one app node vs two, both behind the same round-robin proxy
 * (bench/scale/cluster.ts), on one PostgreSQL database and one S3-compatible bucket (s3rver), with
 * autocannon (32 connections) on three read routes. The one-node figure through the proxy is the
 * baseline, so the proxy's own cost is in both; one node without the proxy is printed too. Jobs are
 * off on both nodes so only requests are measured.
 *
 *   npm run build && DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- scale [--seconds 10]
 *     (a database of its own is created on that server and dropped afterwards; EASEL_APP_DIR: a build elsewhere)
 *
 * On a machine with fewer cores than nodes, the nodes share the CPUs and the ratio shows that.
 */
import os from "node:os";
import autocannon from "autocannon";
import { seed } from "../memory/seed";
import { startProxy } from "./cluster";
import { startCluster } from "./setup";

const argv = process.argv.slice(2);
const SECONDS = argv.includes("--seconds") ? Number(argv[argv.indexOf("--seconds") + 1]) : 10;

async function load(url: string, token: string) {
  const r = await autocannon({ url, connections: 32, duration: SECONDS, headers: { authorization: `Bearer ${token}` } });
  if (r.non2xx) throw new Error(`${url}: ${r.non2xx} non-2xx answers`);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
}

async function main() {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error("bench/scale needs PostgreSQL: set DATABASE_URL (a database of its own is created on that server)");
  const cluster = await startCluster({
    serverUrl,
    nodes: 2,
    env: { EASEL_JOBS_DISABLED: "1", EASEL_RATE_LIMIT_PER_MIN: "1000000000", EASEL_BOARD_TOKEN_RATE_LIMIT_PER_MIN: "1000000000" },
  });
  const onlyA = await startProxy([cluster.nodes[0].origin]);
  try {
    const s = await seed(cluster.proxy.origin, { DATABASE_URL: cluster.databaseUrl }, 30, 20);
    const routes: [string, string][] = [
      ["GET /v1/:slug/assets/:token", `/v1/bench/assets/${s.asset}`],
      ["GET …/assets/:token/versions", `/v1/bench/assets/${s.asset}/versions`],
      ["GET …/boards/:token/assets", `/v1/bench/boards/${s.board}/assets`],
    ];
    console.log(`\nbench/scale: 32 connections × ${SECONDS} s per route and setup (${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}); req/s (p50/p99 ms)`);
    console.log(`${"route".padEnd(30)} ${"1 node direct".padStart(18)} ${"1 node via proxy".padStart(18)} ${"2 nodes via proxy".padStart(18)} ${"2 vs 1".padStart(7)}`);
    const fmt = (r: { rps: number; p50: number; p99: number }) => `${r.rps.toFixed(0)} (${r.p50}/${r.p99})`.padStart(18);
    const ratios: number[] = [];
    for (const [name, p] of routes) {
      const direct = await load(`${cluster.nodes[0].origin}${p}`, s.token);
      const one = await load(`${onlyA.origin}${p}`, s.token);
      const two = await load(`${cluster.proxy.origin}${p}`, s.token);
      ratios.push(two.rps / one.rps);
      console.log(`${name.padEnd(30)} ${fmt(direct)} ${fmt(one)} ${fmt(two)} ${(two.rps / one.rps).toFixed(2).padStart(7)}`);
    }
    console.log(`requests per node through the two-node proxy: ${cluster.proxy.counts.join(" / ")}; mean ratio 2 nodes / 1 node ${(ratios.reduce((a, b) => a + b, 0) / ratios.length).toFixed(2)}`);
  } finally {
    await onlyA.close();
    await cluster.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
