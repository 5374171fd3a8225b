/**
 * `npm run bench -- <name> [args…]` runs bench/<name>/run.ts (versions, upload, jobs, …); with no
 * name it lists them. Each benchmark prints its figures and its ratios against a baseline measured
 * in the same run.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const here = import.meta.dirname;
const available = fs.readdirSync(here).filter((d) => fs.existsSync(path.join(here, d, "run.ts")));
const [name, ...args] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  console.log(`usage: npm run bench -- <${available.join("|")}> [args…]`);
  process.exit(name ? 2 : 0);
}
const r = spawnSync(process.execPath, ["--import", "tsx", path.join(here, name, "run.ts"), ...args], { stdio: "inherit" });
process.exit(r.status ?? 1);
