/**
 * Backup benchmark: `npm run easel -- backup` of an embedded data dir (a fresh database and
 * --gib GiB of objects of random bytes in the store's layout) against GNU `tar` of the same
 * folders, side by side, each run alternately (--runs, best and median reported). Two Easel paths:
 * through a running owner (the server streams the archive to the CLI over the data dir's socket)
 * and in-process (no server running). Everything is read from the page cache (the data was just
 * written) and written to the same disk after `sync`; the machine's load is printed with the figures.
 *
 *   npx tsx bench/backup/run.ts [--gib 1] [--runs 3] [--gzip] [--dir DIR]
 *
 * --gzip compares `tar -czf` with a .tar.gz backup (both single-threaded gzip at level 6).
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb } from "../../lib/db/client";
import { layout } from "../../lib/objectstore/disk/layout";
import { createBucket, type ObjectRecord } from "../../lib/objectstore/disk/objects";

const MiB = 1024 * 1024;
const args = parseArgs(process.argv.slice(2));
const GIB = Number(args.gib ?? 1);
const RUNS = Number(args.runs ?? 3);
const GZIP = args.gzip === "1";
const OBJECT_SIZE = 16 * MiB;
const repoRoot = path.resolve(import.meta.dirname, "../..");

function parseArgs(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i].replace(/^--/, "");
    if (name === "gzip") out[name] = "1";
    else out[name] = argv[++i];
  }
  return out;
}

const load = () => os.loadavg().map((l) => l.toFixed(2)).join(" ");

async function makeDataDir(dataDir: string): Promise<number> {
  const handle = await openDb({ dataDir, role: "server" });
  await handle.close();
  const lay = layout(path.join(dataDir, "objects"));
  await createBucket(lay, "easel", new Date());
  const bytes = Buffer.alloc(OBJECT_SIZE);
  let total = 0;
  for (let i = 0; total < GIB * 1024 * MiB; i++) {
    crypto.randomFillSync(bytes);
    const key = `ws/1/originals/bench-${i}`;
    const md5 = crypto.createHash("md5").update(bytes).digest("hex");
    const file = `${crypto.createHash("sha256").update(key).digest("hex")}.${crypto.randomBytes(12).toString("hex")}.data`;
    fs.mkdirSync(lay.objectDir("easel", key), { recursive: true });
    fs.writeFileSync(path.join(lay.objectDir("easel", key), file), bytes);
    const record: ObjectRecord = { key, size: OBJECT_SIZE, md5, etag: md5, contentType: "video/mp4", lastModified: new Date().toISOString(), segments: [{ file, size: OBJECT_SIZE }], headers: {}, userMetadata: {} };
    fs.writeFileSync(lay.objectRecord("easel", key), JSON.stringify(record));
    total += OBJECT_SIZE;
  }
  return total;
}

function run(cmd: string, argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(cmd, argv, { env, cwd: repoRoot, maxBuffer: 16 * MiB }, (err, stdout, stderr) => (err ? reject(new Error(`${cmd} ${argv.join(" ")}: ${stderr || err.message}`)) : resolve(stdout))),
  );
}

type Sample = { seconds: number; bytes: number; lockMs?: number; archiveSeconds?: number };

async function timed(out: string, fn: () => Promise<string>): Promise<Sample & { stdout: string }> {
  fs.rmSync(out, { force: true });
  execFileSync("sync");
  const started = performance.now();
  const stdout = await fn();
  execFileSync("sync");
  const seconds = (performance.now() - started) / 1000;
  const lock = /locked for (\d+) ms/.exec(stdout);
  const archived = /archived in ([\d.]+) s/.exec(stdout);
  const sample = { seconds, bytes: fs.statSync(out).size, lockMs: lock ? Number(lock[1]) : undefined, archiveSeconds: archived ? Number(archived[1]) : undefined, stdout };
  fs.rmSync(out, { force: true });
  return sample;
}

async function main() {
  const dir = fs.mkdtempSync(path.join(args.dir ?? os.tmpdir(), "easel-bench-backup-"));
  const dataDir = path.join(dir, "data");
  const ext = GZIP ? ".tar.gz" : ".tar";
  try {
    console.log(`# backup bench: ${GIB} GiB of objects (${OBJECT_SIZE / MiB} MiB each, random bytes)${GZIP ? ", gzip" : ""}; ${os.cpus().length} cores, load ${load()}`);
    const objectBytes = await makeDataDir(dataDir);
    const dataBytes = Number(execFileSync("du", ["-sb", dataDir]).toString().split("\t")[0]);
    const easelEnv = { ...process.env, EASEL_DATA_DIR: dataDir } as NodeJS.ProcessEnv;
    delete easelEnv.DATABASE_URL;
    const easel = (out: string) => run(process.execPath, ["--import", "tsx", path.join(repoRoot, "lib/cli/main.ts"), "backup", out], easelEnv);
    const tar = (out: string) => run("tar", [GZIP ? "-czf" : "-cf", out, "-C", dataDir, "pg", "objects"]);

    const results: Record<string, Sample[]> = { tar: [], server: [], inProcess: [] };
    for (let r = 0; r < RUNS; r++) {
      results.tar.push(await timed(path.join(dir, `tar${ext}`), () => tar(path.join(dir, `tar${ext}`))));
      // Through a running owner.
      const owner = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "owner.ts")], { env: easelEnv, stdio: ["ignore", "pipe", "inherit"] });
      await new Promise<void>((resolve) => owner.stdout!.on("data", (d) => String(d).includes("owner:ready") && resolve()));
      results.server.push(await timed(path.join(dir, `easel${ext}`), () => easel(path.join(dir, `easel${ext}`))));
      owner.kill("SIGTERM");
      await new Promise((resolve) => owner.once("exit", resolve));
      // No server: the CLI owns the dir.
      results.inProcess.push(await timed(path.join(dir, `easel${ext}`), () => easel(path.join(dir, `easel${ext}`))));
      console.log(`run ${r + 1}: tar ${results.tar[r].seconds.toFixed(2)} s, easel via server ${results.server[r].seconds.toFixed(2)} s, easel in-process ${results.inProcess[r].seconds.toFixed(2)} s (load ${load()})`);
    }
    const mibps = (s: Sample) => dataBytes / MiB / s.seconds;
    const summary = (name: string, samples: Sample[]) => {
      const rates = samples.map(mibps).sort((a, b) => a - b);
      const inner = samples.filter((s) => s.archiveSeconds).map((s) => dataBytes / MiB / s.archiveSeconds!).sort((a, b) => a - b);
      return { name, best: rates.at(-1)!, median: rates[Math.floor(rates.length / 2)], inner: inner[Math.floor(inner.length / 2)], archive: samples[0].bytes, lockMs: samples.map((s) => s.lockMs).filter((x) => x !== undefined) };
    };
    const rows = [summary("GNU tar", results.tar), summary("easel backup (server running)", results.server), summary("easel backup (no server)", results.inProcess)];
    console.log(`\ndata dir: ${(dataBytes / MiB).toFixed(0)} MiB (${(objectBytes / MiB).toFixed(0)} MiB of objects); MiB/s of the data dir's size, end to end incl. sync`);
    for (const row of rows) {
      const lock = row.lockMs.length ? `, database locked ${row.lockMs.join("/")} ms` : "";
      const inner = row.inner ? ` (${row.inner.toFixed(0)} MiB/s once the CLI has started)` : "";
      console.log(`${row.name.padEnd(32)} best ${row.best.toFixed(0).padStart(5)} MiB/s, median ${row.median.toFixed(0).padStart(5)} MiB/s${inner}, archive ${(row.archive / MiB).toFixed(0)} MiB${lock}`);
    }
    console.log(`ratio easel/tar (median): server ${(rows[1].median / rows[0].median).toFixed(2)}, no server ${(rows[2].median / rows[0].median).toFixed(2)}; load now ${load()}`);
  } finally {
    if (!args.keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
