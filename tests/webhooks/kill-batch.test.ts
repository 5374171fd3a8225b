import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, inject, it } from "vitest";
import { exited } from "../helpers/child-process";
import { jobsDb } from "../jobs/helpers";
import { sleep, startReceiver, waitFor } from "./helpers";

/**
 * kill -9 of the process running the fan-out while its two batches are in flight: every receiver
 * got the message (most answered 200), but neither batch has logged or memoized anything, because
 * two receivers of each batch hold their answers. After a restart on the same data both batches
 * run again whole: every trigger gets the message again, each under the one webhook-id it had in
 * the first life, and the log holds one delivered attempt per trigger (the killed life logged none).
 * The harness (kill/harness.ts) runs the real functions on the embedded executor; PGlite reuses the
 * data dir, PostgreSQL (TEST_DATABASE_URL) a scratch database.
 */
const TRIGGERS = 150;
/** Two receivers in each batch (triggers 0–99 and 100–149: ids sort as the paths do) hold their first answer. */
const holds = (i: number) => [5, 50, 105, 140].includes(i);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-webhook-kill-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

function start(env: Record<string, string>) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, EASEL_WEBHOOK_ALLOW_PRIVATE: "1", EASEL_WEBHOOK_RETRY_SCHEDULE: "0,1,1", ...env };
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "kill/harness.ts")], { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const line = (prefix: string) => output.split("\n").find((l) => l.startsWith(prefix))?.slice(prefix.length).trim();
  return { child, output: () => output, line };
}

type Done = { runs: { function_id: string; status: string }[]; log: { path: string; message_id: string; attempt: number; status: string; error: string | null }[] };

it("kill -9 mid-batch: after a restart every trigger gets the message, under one webhook-id", { timeout: 300_000 }, async () => {
  const receiver = await startReceiver();
  for (let i = 0; i < TRIGGERS; i++) if (holds(i)) receiver.script(`/kill-${i}`, ["hang", 200]);
  const db = inject("testDatabase").kind === "postgres" ? (await jobsDb()).url! : path.join(dir, "data");
  const common = { HARNESS_DB: db, HARNESS_HOOK_BASE: receiver.url("").replace(/\/$/, ""), HARNESS_TRIGGERS: String(TRIGGERS) };
  const paths = Array.from({ length: TRIGGERS }, (_, i) => `/kill-${i}`);

  const first = start({ ...common, HARNESS_SEND: "1" });
  await waitFor(() => paths.every((p) => receiver.at(p).length >= 1) || first.child.exitCode !== null, 120_000, "a request at every receiver");
  first.child.kill("SIGKILL");
  await exited(first.child);
  expect(first.line("harness:sent"), first.output()).toBeDefined();
  expect(first.line("harness:done")).toBeUndefined();
  const firstLife = new Map(paths.map((p) => [p, receiver.at(p).map((r) => r.headers["webhook-id"])]));
  // Every receiver got the message once; the held ones never answered.
  for (const p of paths) expect(firstLife.get(p), p).toHaveLength(1);

  const second = start(common);
  const done = await waitFor(() => second.line("harness:done") ?? (second.child.exitCode !== null && second.child.exitCode !== 0 ? "failed" : undefined), 120_000, "the runs to end");
  expect(done, second.output()).not.toBe("failed");
  await exited(second.child);
  const { runs, log } = JSON.parse(done) as Done;
  await sleep(500);

  for (const p of paths) {
    const ids = receiver.at(p).map((r) => r.headers["webhook-id"]);
    // Both batches were cut short: sent again whole (at least once), under the same webhook-id.
    expect(ids, p).toEqual([firstLife.get(p)![0], firstLife.get(p)![0]]);
  }
  expect(new Set(paths.map((p) => firstLife.get(p)![0])).size).toBe(TRIGGERS);
  // The log: one delivered first attempt per trigger (the killed life logged nothing), under the webhook-id both lives sent.
  expect(log.map((l) => l.path).sort()).toEqual([...paths].sort());
  for (const l of log) expect(l, l.path).toEqual({ path: l.path, message_id: firstLife.get(l.path)![0], attempt: 1, status: "succeeded", error: null });
  expect(runs.map((r) => [r.function_id.replace(/^.*-webhooks/, "webhooks"), r.status])).toEqual([["webhooks-fan-out", "completed"]]);
  console.log(`[webhooks] kill -9 mid-batch (${inject("testDatabase").kind}): all ${TRIGGERS} receivers got the message again after the restart, under their webhook-ids`);
});
