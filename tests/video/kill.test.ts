import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { exited } from "../helpers/child-process";
import { makeClip } from "./helpers";

/**
 * kill -9 of the worker in the middle of an encode (the second rendition running, the first
 * finished): after a restart the encode resumes at the rendition it was cut in, the finished
 * rendition is not encoded again, and the published stream is complete.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-video-kill-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

function start(send: boolean, clip = "") {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "kill/harness.ts")], {
    // The test follows the encode through the child's info lines, whatever level the suite logs at.
    env: { ...process.env, EASEL_LOG_LEVEL: "info", HARNESS_DIR: dir, HARNESS_CLIP: clip, HARNESS_SEND: send ? "1" : "0", EASEL_DATA_DIR: dir },
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
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nchild output:\n${proc.output()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** How many of the child's log lines say that `rendition` (e.g. "360p") `started` or `finished`. */
const count = (text: string, event: string) => {
  const [rendition, what] = event.split(" ");
  return text
    .split("\n")
    .slice(0, -1) // the part after the last newline may be a line still arriving
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { rendition?: string; msg?: string })
    .filter((l) => l.rendition === rendition && l.msg === `rendition encode ${what}`).length;
};

it("resumes an encode after kill -9 without re-encoding the finished rendition", { timeout: 300_000 }, async () => {
  const clip = path.join(dir, "clip.mp4");
  fs.writeFileSync(clip, makeClip({ size: "640x360", seconds: 10, noisy: true }));

  const first = start(true, clip);
  await until(() => count(first.output(), "360p started") > 0, "the second rendition to start", first);
  first.child.kill("SIGKILL");
  await exited(first.child);
  expect(count(first.output(), "240p finished")).toBe(1);
  expect(count(first.output(), "360p finished")).toBe(0);

  const second = start(false);
  await until(() => second.output().includes("harness:done"), "the encode to finish after the restart", second);
  // The harness exits right after reporting: it may be gone before this line runs.
  await exited(second.child);
  const out = second.output();
  const done = JSON.parse(out.slice(out.indexOf("harness:done ") + "harness:done ".length).split("\n")[0]);
  expect(done).toMatchObject({ status: "ready", error: null, missing: 0 });
  // Master → 2 playlists → init + 3 segments each (10 s in 4 s segments).
  expect(done.files).toBe(8);
  expect({ "240p": count(out, "240p started"), "360p": count(out, "360p started"), finished: count(out, "360p finished") }).toEqual({ "240p": 0, "360p": 1, finished: 1 });
});
