import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtAppDir, cli, freePort, startNode, stopNode, waitFor200, type EaselNode } from "../../bench/scale/cluster";
import { exited } from "../helpers/child-process";

/**
 * The embedded default after `kill -9`: the server's whole process group is killed, and `npm start`'s
 * server is started again at once on the same data dir, 20 times in a row. Every start must succeed
 * (the lock the dead server left names a pid that may be anyone's by now) and every write that was
 * answered before the kill must still be there. Needs a build, no PostgreSQL.
 */
const ROUNDS = Number(process.env.EASEL_KILL_ROUNDS ?? 20);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-kill9-"));
const env = { EASEL_DATA_DIR: dataDir, DATABASE_URL: undefined, TEST_DATABASE_URL: undefined, EASEL_RATE_LIMIT_PER_MIN: "100000" };
let appDir: string;
let node: EaselNode;
let token: string;

async function start(): Promise<EaselNode> {
  const started = startNode(appDir, env, await freePort());
  await waitFor200(started, "/v1/openapi.json", {}, 60_000);
  return started;
}

async function createBoard(title: string): Promise<string> {
  const r = await fetch(`${node.origin}/v1/kill9/boards`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ board: { title } }),
  });
  const body = (await r.json()) as { data: { token: string } };
  expect(r.status).toBe(201);
  return body.data.token;
}

beforeAll(async () => {
  appDir = builtAppDir();
  node = await start();
  await cli(env, "workspace", "create", "kill9");
  token = await cli(env, "token", "create", "kill9", "--scopes", "read,write");
}, 120_000);

afterAll(async () => {
  if (node) await stopNode(node);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("kill -9 of the server's process group, then an immediate start", () => {
  it(`restarts on the same data dir ${ROUNDS} times in a row and keeps every answered write`, async () => {
    const answered: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      answered.push(await createBoard(`round ${round}`));
      // Writes still in flight when the process dies may or may not land; they must not break the restart.
      const inFlight = [1, 2, 3].map((i) => createBoard(`in flight ${round}.${i}`).catch(() => undefined));
      process.kill(-node.child.pid!, "SIGKILL");
      await exited(node.child);
      await Promise.all(inFlight);
      node = await start();
      for (const board of answered) {
        const r = await fetch(`${node.origin}/v1/kill9/boards/${board}`, { headers: { authorization: `Bearer ${token}` } });
        expect(r.status, `board ${board} after restart ${round + 1}`).toBe(200);
      }
    }
    expect(answered).toHaveLength(ROUNDS);
  }, 600_000);

  it("still refuses a second server on the data dir while the first one lives", async () => {
    const second = startNode(appDir, env, await freePort());
    await exited(second.child);
    expect(second.child.exitCode).not.toBe(0);
    expect(second.log()).toMatch(/another Easel server \(pid \d+\) is using the embedded database/);
    const r = await fetch(`${node.origin}/v1/kill9/boards`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(200);
  }, 120_000);

  it("answers /healthz and /readyz, and on SIGTERM finishes a request in flight and exits 0", async () => {
    const health = await fetch(`${node.origin}/healthz`);
    expect(health.status).toBe(200);
    expect(health.headers.get("x-request-id")).toBeTruthy();
    const ready = await fetch(`${node.origin}/readyz`);
    expect(await ready.json()).toEqual({ status: "ready", checks: { database: "ok", storage: "ok", jobs: "ok" } });
    // A request still sending its body when SIGTERM arrives is answered before the server exits.
    const slow = new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ board: { title: "sent during shutdown" } });
      const req = http.request(`${node.origin}/v1/kill9/boards`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": String(body.length) } }, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      req.on("error", reject);
      req.write(body.slice(0, 10));
      setTimeout(() => req.end(body.slice(10)), 1_500);
    });
    await new Promise((r) => setTimeout(r, 300));
    const stoppedAt = Date.now();
    process.kill(-node.child.pid!, "SIGTERM");
    expect(await slow).toBe(201);
    await exited(node.child);
    console.log(`[kill9] SIGTERM to exit: ${Date.now() - stoppedAt} ms, exit code ${node.child.exitCode}`);
    expect(node.child.exitCode).toBe(0);
    node = await start();
    const after = await fetch(`${node.origin}/v1/kill9/boards`, { headers: { authorization: `Bearer ${token}` } });
    expect(after.status).toBe(200);
  }, 120_000);
});
