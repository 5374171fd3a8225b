/**
 * bench/startup: time from spawning the server (a built app, the embedded job executor on, as
 * `npm start` runs it) to its first 200, on a fresh data dir / empty database (migrations run, and
 * PGlite creates its cluster) and on existing ones, for PGlite and PostgreSQL. The first 200 is
 * GET /v1/openapi.json, the cheapest route (no auth, no SQL); Next.js holds requests until start-up
 * code (database open and migrations) has finished, so it is also when the API can answer. On
 * existing data the first authenticated read (GET /v1/:slug/boards) is timed too. Baseline in the
 * same run: a bare node:http server process's first 200.
 *
 *   npm run build && npm run bench -- startup [--rounds 3]
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- startup   # + PostgreSQL
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { builtAppDir, cli, freePort, scratchDatabase, startNode, stopNode, waitFor200 } from "../scale/cluster";

const argv = process.argv.slice(2);
const ROUNDS = argv.includes("--rounds") ? Number(argv[argv.indexOf("--rounds") + 1]) : 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function bareNode(): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, ["-e", `require("node:http").createServer((q, s) => s.end("{}")).listen(${port}, "127.0.0.1")`], { stdio: "ignore" });
  try {
    for (;;) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/`);
        await r.arrayBuffer();
        if (r.ok) return performance.now() - t0;
      } catch {}
      await sleep(5);
    }
  } finally {
    child.kill();
  }
}

type Times = { fresh: number; existing: number; firstRead: number };

async function round(databaseUrl: string | undefined): Promise<Times> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-bench-startup-"));
  const scratch = databaseUrl ? await scratchDatabase(databaseUrl, "bench_startup") : null;
  const env = { EASEL_DATA_DIR: dataDir, DATABASE_URL: scratch?.url };
  const port = await freePort();
  try {
    let node = startNode(builtAppDir(), env, port);
    const fresh = await waitFor200(node);
    await cli(env, "workspace", "create", "bench");
    const token = await cli(env, "token", "create", "bench", "--scopes", "read");
    await sleep(1000);
    await stopNode(node);
    node = startNode(builtAppDir(), env, port);
    try {
      const existing = await waitFor200(node);
      const r = await fetch(`${node.origin}/v1/bench/boards`, { headers: { authorization: `Bearer ${token}` } });
      await r.arrayBuffer();
      if (r.status !== 200) throw new Error(`GET /v1/bench/boards → ${r.status}`);
      return { fresh, existing, firstRead: performance.now() - node.startedAt };
    } finally {
      await stopNode(node);
    }
  } finally {
    await scratch?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const bare: number[] = [];
  const results: [string, Times[]][] = [["PGlite", []]];
  if (process.env.DATABASE_URL) results.push(["PostgreSQL", []]);
  else console.log("(DATABASE_URL unset: PostgreSQL skipped)");
  for (let i = 0; i < ROUNDS; i++) {
    bare.push(await bareNode());
    for (const [name, times] of results) times.push(await round(name === "PostgreSQL" ? process.env.DATABASE_URL : undefined));
  }
  const b = median(bare);
  console.log(`\nbench/startup: spawn → first 200, median of ${ROUNDS} (${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(1)}, node ${process.version})`);
  console.log(`  bare node:http process            ${b.toFixed(0).padStart(6)} ms`);
  for (const [name, times] of results) {
    const f = median(times.map((t) => t.fresh));
    const e = median(times.map((t) => t.existing));
    const r = median(times.map((t) => t.firstRead));
    console.log(`  ${name.padEnd(10)} fresh: openapi.json    ${f.toFixed(0).padStart(6)} ms  (${(f / b).toFixed(0)} × bare)   [${times.map((t) => t.fresh.toFixed(0)).join(", ")}]`);
    console.log(`  ${name.padEnd(10)} existing: openapi.json ${e.toFixed(0).padStart(6)} ms  (${(e / b).toFixed(0)} × bare)   [${times.map((t) => t.existing.toFixed(0)).join(", ")}]`);
    console.log(`  ${name.padEnd(10)} existing: first authenticated read ${r.toFixed(0)} ms   [${times.map((t) => t.firstRead.toFixed(0)).join(", ")}]`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
