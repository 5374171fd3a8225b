/**
 * bench/api/forwarding: what forwarding a storage request to the store's owner costs under
 * EASEL_WORKERS (docs/scaling.md, "Workers"). One `npm start` with two workers on PostgreSQL and
 * the embedded store; 8 MiB upload parts are PUT one after another, each on a connection of its
 * own, so the connections alternate between the owner (which stores the part itself) and the
 * member (which streams it to the owner over the private socket). Each part's time is the
 * server's own, from its access line (arrival to the end of the answer, on the worker the client
 * reached), so both sides are measured in the same run, interleaved.
 *
 *   npm run build && DATABASE_URL=postgres://… npx tsx bench/api/forwarding.ts [--uploads 16]
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { followLogLines } from "../../tests/helpers/child-process";
import { api, builtAppDir, cli, freePort, scratchDatabase, startNode, stopNode, waitFor200 } from "../scale/cluster";

const argv = process.argv.slice(2);
const UPLOADS = Number(argv[argv.indexOf("--uploads") + 1] || 16) || 16;
const PART = 8 * 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  if (!process.env.DATABASE_URL) throw new Error("needs PostgreSQL (DATABASE_URL): workers run on PostgreSQL only");
  const scratch = await scratchDatabase(process.env.DATABASE_URL, "bench_forwarding");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-bench-forwarding-"));
  const node = startNode(builtAppDir(), { DATABASE_URL: scratch.url, EASEL_DATA_DIR: dataDir, EASEL_WORKERS: "2", EASEL_RATE_LIMIT_PER_MIN: "1000000", EASEL_JOBS_DISABLED: "1" }, await freePort());
  const lines = followLogLines(node.child);
  try {
    while (!lines.some((l) => l.msg === "all workers ready")) {
      if (node.child.exitCode !== null) throw new Error(`the server exited:\n${node.log()}`);
      await sleep(100);
    }
    await waitFor200(node);
    const env = { DATABASE_URL: scratch.url };
    await cli(env, "workspace", "create", "fwd", "--plan", "team");
    const token = await cli(env, "token", "create", "fwd", "--scopes", "read,write");
    const owner = lines.find((l) => l.msg === "worker started" && l.role === "owner")!.worker;
    const body = crypto.randomBytes(PART);
    const load0 = os.loadavg()[0];
    for (let i = 0; i < UPLOADS; i++) {
      const prep = (await api(node.origin, token, "POST", "/v1/fwd/assets/upload_prepare", { asset: { title: `f${i}`, media_type: "application/octet-stream", size: 4 * PART } })).body.data;
      for (const url of prep.part_urls as string[]) {
        const r = await fetch(url, { method: "PUT", body, headers: { connection: "close" } });
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`part PUT → ${r.status}`);
      }
    }
    await sleep(500);
    const puts = lines.filter((l) => l.msg === "request" && l.method === "PUT" && String(l.route).startsWith("/storage/") && l.status === 200);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    const by = (mine: boolean) => puts.filter((l) => (l.worker === owner) === mine).map((l) => l.duration_ms as number);
    const ownMs = by(true);
    const fwdMs = by(false);
    const mbps = (ms: number) => (PART / 1024 / 1024 / (ms / 1000)).toFixed(0);
    console.log(`\n8 MiB part PUTs, one per connection, ${UPLOADS * 4} in all; load average ${load0.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after`);
    console.log(`answered by the owner (stored in place):      ${ownMs.length} parts, median ${median(ownMs).toFixed(1)} ms (${mbps(median(ownMs))} MiB/s)`);
    console.log(`answered by the member (forwarded to owner):  ${fwdMs.length} parts, median ${median(fwdMs).toFixed(1)} ms (${mbps(median(fwdMs))} MiB/s)`);
    console.log(`forwarded / in place: ${(median(fwdMs) / median(ownMs)).toFixed(2)} × the time`);
  } finally {
    await stopNode(node);
    await scratch.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
