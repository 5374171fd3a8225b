import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { exited } from "../helpers/child-process";
import { makeClip } from "./helpers";

/**
 * kill -9 of the worker in the middle of the ladder's single pass, after it stored some segments
 * of every rung: after a restart the encode resumes at the first segment not stored, its ffmpeg
 * starts there (not at 0), the segments stored before the kill are neither encoded nor stored
 * again (same objects, same ETags), and the published stream is complete.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-video-kill-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

function start(send: boolean, clip = "") {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "kill/harness.ts")], {
    // The test follows the encode through the child's log lines (debug: each round of stored segments).
    env: { ...process.env, EASEL_LOG_LEVEL: "debug", HARNESS_DIR: dir, HARNESS_CLIP: clip, HARNESS_SEND: send ? "1" : "0", EASEL_DATA_DIR: dir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  children.push(child);
  return { child, output: () => output };
}

async function until(test: () => boolean, what: string, proc: { output: () => string }, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nchild output:\n${proc.output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

type LogLine = { msg?: string; from?: number; to?: number; final?: boolean; start_segment?: number; start_seconds?: number; rungs?: string[] };

/** The child's complete JSON log lines with this message. */
const lines = (text: string, msg: string): LogLine[] =>
  text
    .split("\n")
    .slice(0, -1) // the part after the last newline may be a line still arriving
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as LogLine)
    .filter((l) => l.msg === msg);

/** The JSON after `harness:<tag> ` in the output. */
const report = (text: string, tag: string) => JSON.parse(text.slice(text.indexOf(`harness:${tag} `) + `harness:${tag} `.length).split("\n")[0]);

it("resumes the ladder after kill -9 from its last segment stored in every rung, without encoding or storing those again", { timeout: 300_000 }, async () => {
  const clip = path.join(dir, "clip.mp4");
  // 32 s: 8 segments of 4 s in a 240p/360p ladder, several seconds of encoding on two cores.
  fs.writeFileSync(clip, makeClip({ size: "640x360", seconds: 32, noisy: true }));

  const first = start(true, clip);
  // Killed once at least two segments of every rung are stored, and before the last.
  await until(() => lines(first.output(), "segments stored").some((l) => l.to! >= 1), "two segments of every rung to be stored", first);
  first.child.kill("SIGKILL");
  await exited(first.child);
  const firstRounds = lines(first.output(), "segments stored");
  expect(firstRounds.some((l) => l.final)).toBe(false);
  expect(lines(first.output(), "ladder encode started").map((l) => l.start_segment)).toEqual([0]);

  const second = start(false);
  await until(() => second.output().includes("harness:done"), "the encode to finish after the restart", second);
  // The harness exits right after reporting: it may be gone before this line runs.
  await exited(second.child);
  const out = second.output();
  const stored = report(out, "stored") as Record<string, string>;
  const done = report(out, "done") as { status: string; error: string | null; files: number; missing: number; seconds: number; etags: Record<string, string> };

  // Before the restart: segments 0..n-1 of both rungs, n ≥ 2 (lockstep), and not the whole clip.
  const storedNames = Object.keys(stored).sort();
  const perRung = (rung: string) => storedNames.filter((k) => k.startsWith(`${rung}/`)).length;
  const n = perRung("240p");
  expect(n).toBeGreaterThanOrEqual(2);
  expect(n).toBeLessThan(8);
  expect(perRung("360p")).toBe(n);

  // The resumed ffmpeg started at segment n (n × 4 s into the source), and stored nothing before it.
  const resumed = lines(out, "ladder encode started");
  expect(resumed.map((l) => [l.start_segment, l.start_seconds])).toEqual([[n, n * 4]]);
  const rounds = lines(out, "segments stored");
  expect(rounds.length).toBeGreaterThan(0);
  expect(Math.min(...rounds.map((l) => l.from!))).toBe(n);

  // Published and complete: master → 2 playlists → init + 8 segments each, 32 s long.
  expect(done).toMatchObject({ status: "ready", error: null, missing: 0, files: 18 });
  expect(done.seconds).toBeCloseTo(32, 0);
  // The segments stored before the kill are the very objects the stream serves.
  for (const name of storedNames) expect(done.etags[name], name).toBe(stored[name]);
});
