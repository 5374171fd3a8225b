import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { exited } from "../helpers/child-process";
import { jobsDb } from "./helpers";

/**
 * kill -9 of the process running the executor, once in the middle of a step and during a sleep:
 * after a restart both runs complete, and no finished step runs again.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-kill-"));
const logFile = path.join(dir, "steps.log");
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

function start(db: string, send: boolean) {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "kill/harness.ts")], {
    env: { ...process.env, HARNESS_DB: db, HARNESS_LOG: logFile, HARNESS_SEND: send ? "1" : "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  children.push(child);
  return { child, output: () => output };
}

const lines = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, "utf8").trim().split("\n") : []);
const count = (line: string) => lines().filter((l) => l === line).length;

async function until(test: () => boolean, what: string, proc: { output: () => string }, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nlog:\n${lines().join("\n")}\nchild output:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it("resumes runs after kill -9, mid-step and mid-sleep, without re-running finished steps", { timeout: 240_000 }, async () => {
  const target = await jobsDb();
  const db = target.kind === "postgres" ? target.url! : path.join(dir, "data");

  const first = start(db, true);
  // Killed once "slow" is running (after "a" was memoized) and "sleepy" sleeps (after "before" was memoized).
  const ready = () => count("slow.slow:start") === 1 && count("memoized:kill-slow-steps/a") === 1 && count("memoized:kill-sleepy/before") === 1;
  await until(ready, "a step in flight and a run asleep", first);
  first.child.kill("SIGKILL");
  await exited(first.child);
  expect(count("slow.slow:end")).toBe(0);
  expect(count("sleepy.after")).toBe(0);
  expect(count("memoized:kill-sleepy/nap")).toBe(0);

  const second = start(db, false);
  await until(() => lines().some((l) => l.startsWith("harness:done")), "both runs to finish", second);
  // The harness exits right after writing "done": it may be gone before this line runs.
  await exited(second.child);

  const done = lines().find((l) => l.startsWith("harness:done"))!;
  expect(JSON.parse(done.slice("harness:done ".length))).toEqual(
    expect.arrayContaining([
      { fn: "kill-slow-steps", status: "completed" },
      { fn: "kill-sleepy", status: "completed" },
    ]),
  );
  // Memoized steps ran once; the step killed mid-way ran again (at-least-once) and finished once.
  expect({ a: count("slow.a"), slowStart: count("slow.slow:start"), slowEnd: count("slow.slow:end"), c: count("slow.c") }).toEqual({ a: 1, slowStart: 2, slowEnd: 1, c: 1 });
  expect({ before: count("sleepy.before"), after: count("sleepy.after") }).toEqual({ before: 1, after: 1 });
});
