import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const repoRoot = path.resolve(import.meta.dirname, "../..");
/**
 * Built releases are kept here between runs (a clean clone builds them once). Not under
 * node_modules: TypeScript reads no JavaScript file below a node_modules folder, so `next build`'s
 * type check of a release there fails on its typed .mjs modules (lib/log/logger.mjs and others).
 */
export const CACHE = process.env.EASEL_UPGRADE_CACHE ?? path.join(os.tmpdir(), "easel-upgrade-builds");
const BUILT_MARK = ".easel-upgrade-built";
/** Written once the release's dependencies are installed: a failed build is retried without installing again. */
const DEPS_MARK = ".easel-upgrade-deps";

const git = (...args: string[]) => execFileSync("git", args, { cwd: repoRoot, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });

function run(cmd: string, args: string[], cwd: string) {
  const started = performance.now();
  // A test runner's NODE_ENV=test must not reach `next build`.
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  delete (env as Record<string, string | undefined>).NODE_ENV;
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", env, maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} in ${cwd} failed (${r.status}):\n${(r.stdout ?? "").slice(-4000)}\n${(r.stderr ?? "").slice(-4000)}`);
  return Math.round(performance.now() - started);
}

/**
 * node_modules for a release: a hard-linked copy of this checkout's when the release's
 * package-lock.json is this one's byte for byte (seconds, no disk), else `npm ci` in the release.
 */
function installDependencies(dir: string, commit: string): string {
  const lock = git("show", `${commit}:package-lock.json`);
  if (lock === fs.readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) {
    fs.mkdirSync(path.join(dir, "node_modules"));
    for (const entry of fs.readdirSync(path.join(repoRoot, "node_modules"))) {
      // The cache holds the releases themselves (and this one).
      if (entry === ".cache") continue;
      execFileSync("cp", ["-al", path.join(repoRoot, "node_modules", entry), path.join(dir, "node_modules", entry)]);
    }
    return "node_modules hard-linked (same package-lock.json)";
  }
  const ms = run("npm", ["ci", "--no-audit", "--no-fund", "--prefer-offline"], dir);
  return `npm ci ${ms} ms (package-lock.json differs)`;
}

export type ReleaseBuild = { commit: string; dir: string; cached: boolean; notes: string[] };

/**
 * A release's build: a `git worktree` of its commit under the cache, its dependencies, and
 * `next build`. Reused as long as its mark is there; a half-made one is removed and made again.
 */
export function buildRelease(commit: string): ReleaseBuild {
  const full = git("rev-parse", `${commit}^{commit}`).trim();
  const dir = path.join(CACHE, full);
  if (fs.existsSync(path.join(dir, BUILT_MARK)) && fs.existsSync(path.join(dir, ".next/BUILD_ID"))) return { commit: full, dir, cached: true, notes: [] };
  // A release whose build failed (or was cut short) keeps its worktree and dependencies, and builds again.
  const notes: string[] = [];
  if (!fs.existsSync(path.join(dir, DEPS_MARK))) {
    fs.rmSync(dir, { recursive: true, force: true });
    git("worktree", "prune");
    fs.mkdirSync(CACHE, { recursive: true });
    git("worktree", "add", "--detach", "--force", dir, full);
    notes.push(installDependencies(dir, full));
    fs.writeFileSync(path.join(dir, DEPS_MARK), `${notes[0]}\n`);
  }
  notes.push(`next build ${run("npm", ["run", "build"], dir)} ms`);
  fs.writeFileSync(path.join(dir, BUILT_MARK), `${new Date().toISOString()}\n${notes.join("\n")}\n`);
  return { commit: full, dir, cached: false, notes };
}

if (process.argv[1] === import.meta.filename) {
  for (const commit of process.argv.slice(2)) {
    const started = performance.now();
    const built = buildRelease(commit);
    console.log(`${commit}: ${built.dir} ${built.cached ? "(cached)" : built.notes.join("; ")} in ${Math.round(performance.now() - started)} ms`);
  }
}
