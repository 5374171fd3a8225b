import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import { systemClock } from "../../lib/clock";
import { openDb, type DbHandle } from "../../lib/db/client";
import { setDeps } from "../../lib/deps";
import { recordingJobSender } from "../../lib/jobs/send";
import { call } from "../helpers/call-route";
import { expectError } from "../helpers/envelopes";
import { uniq } from "../helpers/factories";
import { resolverOf, testStores } from "../helpers/test-storage";

/**
 * The CLI runs while a server holds the embedded database: this process opens the data dir as the
 * server would (owner, serving the wire socket), and the CLI runs as a separate process.
 */
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-cli-"));
let server: DbHandle;

/** Runs the CLI as its own process; asynchronously, since this process serves its database. */
function easel(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string; last: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, EASEL_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", "lib/cli/main.ts", ...args], { env, encoding: "utf8", timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : null) : 0;
      resolve({ code, stdout, stderr, last: stdout.trim().split("\n").at(-1) ?? "" });
    });
  });
}

beforeAll(async () => {
  server = await openDb({ dataDir, role: "server" });
  setDeps({ db: server.db, clock: systemClock, jobs: recordingJobSender(), storage: resolverOf(testStores(server.db, systemClock)) });
});

afterAll(async () => {
  setDeps(null);
  await server?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("npm run easel while a server owns the embedded database", () => {
  it("creates a workspace and a token that the API accepts, then revokes it", async () => {
    const slug = uniq("cli");
    expect((await easel("workspace", "create", slug, "--plan", "team", "--name", "CLI Co")).code).toBe(0);
    const created = await easel("token", "create", slug, "--scopes", "read,write");
    expect(created.code).toBe(0);
    expect(created.last).toMatch(/^easel_[A-Za-z0-9_-]{20,}$/);
    const list = () => call(boardsRoute.GET, { path: `/v1/${slug}/boards`, token: created.last, params: { slug } });
    expect((await list()).body).toEqual({ data: [], pagy: { current_page: 1, page_items: 0, total_pages: 1, total_count: 0 } });
    expect((await easel("token", "revoke", created.last)).code).toBe(0);
    expectError(await list(), 401, "unauthenticated");
  }, 120_000);

  it("refuses bad input with a message and a non-zero exit, changing nothing", async () => {
    for (const slug of ["trigger", "mcp", "api", "test", "Bad_Slug", "x", "a".repeat(65)]) {
      const r = await easel("workspace", "create", slug);
      expect(r.code, slug).not.toBe(0);
      expect(r.stderr).toMatch(/error: /);
    }
    const slug = uniq("dup");
    expect((await easel("workspace", "create", slug)).code).toBe(0);
    expect((await easel("workspace", "create", slug)).stderr).toMatch(/already exists/);
    expect((await easel("workspace", "create", uniq("p"), "--plan", "gold")).stderr).toMatch(/unknown plan/);
    expect((await easel("token", "create", "no-such-workspace")).code).toBe(1);
    expect((await easel("token", "create", slug, "--scopes", "admin")).stderr).toMatch(/unknown scope/);
    expect((await easel("workspace", "update", slug, "--streaming", "maybe")).code).toBe(1);
    expect((await easel("frobnicate")).code).toBe(2);
    expect((await easel("admin", "create", "not-an-email", "password123")).code).toBe(1);
    expect((await easel("admin", "create", "admin@example.com", "password123")).code).toBe(0);
  }, 180_000);

  it("a second server on the same data dir refuses to start", async () => {
    await expect(openDb({ dataDir, role: "server" })).rejects.toThrow(/another Easel server .* is using the embedded database/);
  });
});
