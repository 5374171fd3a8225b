/**
 * PGlite on its own, for bench/memory: opens the embedded database of a stopped server's data dir,
 * runs the bench's read queries 200 times, and prints one JSON line with its RSS and memory
 * breakdown — what the embedded database costs without Next.js and Easel around it.
 *
 *   node --import ./bench/memory/probe.mjs --import tsx bench/memory/pglite-alone.ts <data dir>
 */
import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";

const dataDir = process.argv[2];
const pg = await PGlite.create({ dataDir: path.join(dataDir, "pg") });
for (let i = 0; i < 200; i++) {
  await pg.query("select a.*, w.slug from assets a join workspaces w on w.id = a.workspace_id order by a.created_at desc limit 20");
  await pg.query("select * from asset_versions order by version_number desc limit 100");
  await pg.query("select count(*) from assets");
}
await new Promise((r) => setTimeout(r, 1000));
const probeFile = process.env.EASEL_MEMORY_PROBE_FILE;
const probe = probeFile && fs.existsSync(probeFile) ? JSON.parse(fs.readFileSync(probeFile, "utf8")).now : null;
console.log(JSON.stringify({ ...process.memoryUsage(), wasm: probe?.wasm ?? null }));
await pg.close();
