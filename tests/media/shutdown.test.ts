import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, inject, it } from "vitest";
import { exited } from "../helpers/child-process";
import { jobsDb } from "../jobs/helpers";

/**
 * Contract §13: a stop (SIGTERM) ends the media children and the server exits within
 * EASEL_SHUTDOWN_TIMEOUT_S while a render is running. A whole server process (shutdown/harness.ts:
 * booted as `npm start` boots, with its stop sequence) renders an SVG that takes minutes; the
 * test sends SIGTERM once the render's child runs. On PGlite a data dir of its own, on PostgreSQL
 * (TEST_DATABASE_URL) a scratch database.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-media-stop-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(" ")[2] !== "Z"; // a zombie has ended
  } catch {
    return false;
  }
};

async function startRendering(): Promise<{ child: ChildProcess; output: () => string; pids: number[] }> {
  const dbEnv: Record<string, string> = inject("testDatabase").kind === "postgres" ? { DATABASE_URL: (await jobsDb()).url! } : {};
  const dataDir = fs.mkdtempSync(path.join(dir, "data-"));
  const env: NodeJS.ProcessEnv = { ...process.env, EASEL_LOG_LEVEL: "info", EASEL_DATA_DIR: dataDir, EASEL_SHUTDOWN_TIMEOUT_S: "10", NEXT_RUNTIME: "nodejs", ...dbEnv };
  if (!dbEnv.DATABASE_URL) delete env.DATABASE_URL;
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "shutdown/harness.ts")], { env, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const deadline = Date.now() + 120_000;
  while (!output.includes("harness:rendering ")) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the render never started\n${output.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const pids = output.split("harness:rendering ")[1].split("\n")[0].split(",").map(Number);
  expect(pids.every(alive)).toBe(true);
  // The render is under way (the image child has started on the SVG) before the stop.
  await new Promise((r) => setTimeout(r, 1_000));
  return { child, output: () => output, pids };
}

it("SIGTERM during a render: the render's child is ended and the server exits 0 within EASEL_SHUTDOWN_TIMEOUT_S", { timeout: 180_000 }, async () => {
  const { child, output, pids } = await startRendering();
  const stoppedAt = Date.now();
  child.kill("SIGTERM");
  await exited(child);
  const tookMs = Date.now() - stoppedAt;
  console.log(`[media] SIGTERM with a render running (${inject("testDatabase").kind}): exit ${child.exitCode} after ${tookMs} ms`);
  expect(child.exitCode).toBe(0);
  expect(output()).toContain("harness:stopped");
  expect(output()).toContain("stopping: ended the media children still running");
  expect(tookMs).toBeLessThan(10_000);
  expect(pids.filter(alive)).toEqual([]);
});

it("kill -9 of the server during a render: the render's child dies with it (parent-death signal)", { timeout: 180_000 }, async () => {
  const { child, pids } = await startRendering();
  child.kill("SIGKILL");
  await exited(child);
  const deadline = Date.now() + 5_000;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(pids.filter(alive)).toEqual([]);
});
