/**
 * bench/queues — fair queues (docs/jobs.md, "Fair queues"): how long another workspace's new job
 * waits behind one workspace's backlog, and what the claim statement costs with thousands queued,
 * for this tree's executor and a baseline commit's (the claim in arrival order), side by side.
 *   npx tsx bench/queues/run.ts [--base <rev>] [--rounds 2]     PGlite in memory
 *   BENCH_DATABASE_URL=postgres://… npx tsx bench/queues/run.ts  PostgreSQL (plus EXPLAIN ANALYZE)
 *   BENCH_QUEUED=5000 sets the backlog of the claim measurement.
 * The baseline is the commit's lib/ and drizzle/ exported with `git archive` into a temporary
 * folder (no worktree is registered), sharing this tree's node_modules, with this folder's
 * scenario.ts copied in; the two run alternately, each in a process of its own (scenario.ts).
 */
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const here = import.meta.dirname;
const root = path.resolve(here, "../..");
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
/** The commit before fair queues: its claim takes due items in arrival order. */
const base = arg("base", "008a6ba");
const rounds = Number(arg("rounds", "2"));

function baselineTree(): string {
  const rev = execFileSync("git", ["rev-parse", "--short", base], { cwd: root, encoding: "utf8" }).trim();
  const dir = path.join(os.tmpdir(), `easel-bench-queues-${rev}`);
  if (!fs.existsSync(path.join(dir, "lib"))) {
    fs.mkdirSync(dir, { recursive: true });
    const archive = execFileSync("git", ["archive", rev, "lib", "drizzle", "tests/jobs/fixtures", "package.json", "tsconfig.json"], { cwd: root, maxBuffer: 1 << 30 });
    execFileSync("tar", ["-x", "-C", dir], { input: archive });
    fs.symlinkSync(fs.realpathSync(path.join(root, "node_modules")), path.join(dir, "node_modules"));
  }
  fs.mkdirSync(path.join(dir, "bench/queues"), { recursive: true });
  fs.copyFileSync(path.join(here, "scenario.ts"), path.join(dir, "bench/queues/scenario.ts"));
  return dir;
}

type Result = {
  newcomer: { ms: number; othersBetween: number };
  rounds: { ms: number; othersBetween: number };
  claim: { room: { median: number; p90: number; empty: number }; full: { median: number; p90: number; empty: number }; explain: string[] };
  load: number[];
};

function runIn(dir: string): Result {
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join(dir, "bench/queues/scenario.ts")], { cwd: dir, encoding: "utf8", env: process.env, maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`scenario in ${dir} failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as Result;
}

const f = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(2)} s` : `${n.toFixed(1)} ms`);

function main() {
  const baseDir = baselineTree();
  const db = process.env.BENCH_DATABASE_URL ? "PostgreSQL" : "PGlite (in memory)";
  console.log(`bench/queues on ${db}: this tree against ${base} (${baseDir}), ${rounds} round(s) alternating; claim backlog ${process.env.BENCH_QUEUED ?? 5000}`);
  const pairs: { before: Result; after: Result }[] = [];
  for (let i = 0; i < rounds; i++) {
    const before = runIn(baseDir);
    const after = runIn(root);
    pairs.push({ before, after });
  }
  const rows: [string, (r: Result) => number, (n: number) => string][] = [
    ["B's new job waits (A: 1,000 queued filling the executor)", (r) => r.newcomer.ms, f],
    ["— A runs started meanwhile", (r) => r.newcomer.othersBetween, String],
    ["D's new job waits (A and C: 1,000 queued each)", (r) => r.rounds.ms, f],
    ["— A or C runs started meanwhile", (r) => r.rounds.othersBetween, String],
    ["claim, the workspace has room: median", (r) => r.claim.room.median, f],
    ["claim, the workspace has room: p90", (r) => r.claim.room.p90, f],
    ["claim, the workspace is full (find another's): median", (r) => r.claim.full.median, f],
    ["claim, the workspace is full: p90", (r) => r.claim.full.p90, f],
    ["claims (of 80) that took nothing while an item was due", (r) => r.claim.room.empty + r.claim.full.empty, String],
  ];
  console.log(`${"".padEnd(56)} ${"before".padEnd(24)} ${"after".padEnd(24)} after / before`);
  for (const [label, pick, fmt] of rows) {
    const before = pairs.map((p) => fmt(pick(p.before))).join(" / ");
    const after = pairs.map((p) => fmt(pick(p.after))).join(" / ");
    const ratio = pairs.map((p) => (pick(p.before) ? (pick(p.after) / pick(p.before)).toFixed(3) : "—")).join(" / ");
    console.log(`${label.padEnd(56)} ${before.padEnd(24)} ${after.padEnd(24)} ${ratio}`);
  }
  console.log(`load average (1 min) at each run's start and end: ${pairs.map((p) => `before ${p.before.load.join("→")}, after ${p.after.load.join("→")}`).join("; ")}`);
  const explain = pairs.at(-1)!;
  for (const [label, r] of [
    ["before", explain.before],
    ["after", explain.after],
  ] as const) {
    if (!r.claim.explain.length) continue;
    console.log(`\nEXPLAIN ANALYZE of the claim, ${label} (workspace full, another's one run behind the backlog):`);
    for (const line of r.claim.explain) console.log(`  ${line}`);
  }
}

main();
