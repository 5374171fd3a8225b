import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtAppDir, cli, freePort, scratchDatabase, startNode, stopNode, waitFor200, type EaselNode } from "../../bench/scale/cluster";
import { recordedReleases } from "../../lib/db/check-migrations/releases";
import { buildRelease, repoRoot, type ReleaseBuild } from "./release-build";
import { seed, snapshot, uploadAsset, type Seeded } from "./release-data";

/**
 * Upgrades from real history (`npm run test:upgrade`): each release recorded in
 * lib/db/check-migrations/releases.json is built from its commit (release-build.ts), started on a
 * new embedded data dir and on a new PostgreSQL database (TEST_DATABASE_URL or DATABASE_URL), and
 * given data through its own API and CLI. Then it stops, this checkout's build starts on the same
 * data, and everything must read back the same: bytes by md5, versions, boards, the API token and
 * a board access token, the trigger, members, and a job the old release queued but never ran
 * (its executor was off) must run. The previous release (the last recorded) is then started again
 * on the migrated data and must read what the new build wrote: a migration that drops or renames
 * something it reads fails here (expand, then contract: docs/architecture.md).
 *
 * EASEL_UPGRADE_RELEASES=name,name picks releases; EASEL_UPGRADE_DATABASES=pglite|postgres picks databases.
 */
const pick = (v: string | undefined) => (v ? v.split(",").map((s) => s.trim()) : null);
const wanted = pick(process.env.EASEL_UPGRADE_RELEASES);
const releases = recordedReleases(repoRoot).filter((r) => !wanted || wanted.includes(r.name));
const previousRelease = recordedReleases(repoRoot).at(-1)!;
const pgServer = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
const databases = (pick(process.env.EASEL_UPGRADE_DATABASES) ?? ["pglite", "postgres"]).filter((d) => d === "pglite" || (d === "postgres" && pgServer));
const SLUG = "upgrade";

const timings: string[] = [];
const timed = async <T>(label: string, fn: () => Promise<T> | T): Promise<T> => {
  const started = performance.now();
  try {
    return await fn();
  } finally {
    timings.push(`${label}: ${Math.round(performance.now() - started)} ms`);
  }
};

/** A release's own admin CLI, run from its checkout. */
function cliIn(dir: string, env: Record<string, string | undefined>, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const full = { ...process.env, ...env } as NodeJS.ProcessEnv;
    for (const [k, v] of Object.entries(full)) if (v === undefined) delete full[k];
    execFile(process.execPath, ["--import", "tsx", "lib/cli/main.ts", ...args], { cwd: dir, env: full }, (err, stdout, stderr) => {
      if (err) reject(new Error(`easel ${args.join(" ")} (in ${dir}): ${stderr || err.message}`));
      else resolve(stdout.trim().split("\n").at(-1)!);
    });
  });
}

/** Collects webhook deliveries (their bodies as text). */
async function webhookReceiver() {
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      bodies.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hook`, bodies, close: () => new Promise((r) => server.close(r)) };
}

async function start(dir: string, env: Record<string, string | undefined>, label: string): Promise<EaselNode> {
  const node = startNode(dir, env, await freePort());
  await timed(`${label} start`, () => waitFor200(node, "/v1/openapi.json", {}, 180_000));
  return node;
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let current: string;
beforeAll(() => {
  current = builtAppDir();
});
afterAll(() => {
  console.log(`[upgrade] timings\n  ${timings.join("\n  ")}`);
});

describe.each(releases)("upgrading from $name ($migrations, $commit)", (release) => {
  let build: ReleaseBuild;
  beforeAll(async () => {
    build = await timed(`build ${release.name}`, () => buildRelease(release.commit));
    if (!build.cached) timings.push(`  ${release.name}: ${build.notes.join("; ")}`);
  }, 1_200_000);

  it.each(databases)("on %s: what it stored reads back the same on this build", async (database) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `easel-upgrade-${release.name}-`));
    const scratch = database === "postgres" ? await scratchDatabase(pgServer!, `upgrade_${release.name}`) : null;
    const hooks = await webhookReceiver();
    const env = {
      EASEL_DATA_DIR: dataDir,
      DATABASE_URL: scratch?.url,
      TEST_DATABASE_URL: undefined,
      EASEL_WEBHOOK_ALLOW_PRIVATE: "1",
      EASEL_RATE_LIMIT_PER_MIN: "100000",
    };
    const nodes: EaselNode[] = [];
    const label = `${release.name}/${database}`;
    try {
      // ---- the old release makes the data
      let node = await start(build.dir, env, `${label} old`);
      nodes.push(node);
      await cliIn(build.dir, env, "workspace", "create", SLUG, "--plan", "team", "--storage", "s3");
      const token = await cliIn(build.dir, env, "token", "create", SLUG, "--scopes", "read,write", "--webhooks");
      const hasMembers = fs.existsSync(path.join(build.dir, "lib/cli/member-commands.ts"));
      if (hasMembers) {
        await cliIn(build.dir, env, "user", "create", "member@easel.test", "upgrade-test-password-1");
        await cliIn(build.dir, env, "member", "add", SLUG, "member@easel.test", "--role", "editor");
      }
      const seeded: Seeded = await timed(`${label} seed`, () => seed(node.origin, token, SLUG, hooks.url));
      await waitFor("the old release's webhook deliveries", () => hooks.bodies.length >= 1);
      await stopNode(node);

      // ---- a job queued by the old release that it never ran: its executor is off
      node = await start(build.dir, { ...env, EASEL_JOBS_DISABLED: "1" }, `${label} old, jobs off`);
      nodes.push(node);
      const queued = await uploadAsset(node.origin, token, SLUG, seeded.boards[0], "Queued");
      seeded.assets.push(queued);
      const before = await snapshot(node.origin, token, seeded);
      await stopNode(node);
      expect(hooks.bodies.some((b) => b.includes(queued))).toBe(false);

      // ---- this build on the same data
      node = await start(current, env, `${label} new`);
      nodes.push(node);
      if (database === "pglite") expect(fs.readdirSync(path.join(dataDir, "backups"))).toEqual([expect.stringMatching(/^pre-upgrade-.*\.tar$/)]);
      const after = await snapshot(node.origin, token, seeded);
      expect(after).toEqual(before);
      expect(after.board_access_token_status).toBe(200);
      expect(after.trigger_listed).toBe(true);
      await timed(`${label} queued job delivered`, () => waitFor("the queued asset_added delivery", () => hooks.bodies.some((b) => b.includes(queued))));
      if (hasMembers) await cli(env, "member", "remove", SLUG, "member@easel.test");
      // A write by this build, which the previous release must read below.
      const written = await fetch(`${node.origin}/v1/${SLUG}/assets/${seeded.assets[1]}`, {
        method: "PATCH",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ asset: { create_version: true, description: "written by the new build", comment: "after the upgrade" } }),
      });
      expect(written.status).toBe(200);
      const upgraded = await snapshot(node.origin, token, seeded);
      await stopNode(node);

      // ---- the previous release again, on the migrated data (a rolling upgrade's old nodes, or a roll back)
      if (release.commit === previousRelease.commit) {
        node = await start(build.dir, env, `${label} old again`);
        nodes.push(node);
        expect(await snapshot(node.origin, token, seeded)).toEqual(upgraded);
        await stopNode(node);
      }
    } finally {
      for (const n of nodes) await stopNode(n);
      await hooks.close();
      await scratch?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 600_000);
});
