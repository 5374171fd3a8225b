import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, expect, inject, it } from "vitest";
import { exited } from "../helpers/child-process";
import { jobsDb } from "../jobs/helpers";
import { sleep, startReceiver, waitFor } from "../webhooks/helpers";

/**
 * Contract §10, durability: a write's event is stored in the write's own transaction, so a server
 * killed between the commit and the hand-off of the event still delivers it after a restart on the
 * same data. The harness (outbox/harness.ts) starts as `npm start` does (lib/boot.ts: database,
 * executor, outbox relay); EASEL_TEST_OUTBOX_PAUSE_MS holds the PATCH between its commit and its
 * hand-off, and the test sends SIGKILL inside that window. On PGlite the data dir is reused, on
 * PostgreSQL (TEST_DATABASE_URL) a scratch database.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-outbox-kill-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

function start(env: Record<string, string>) {
  // The test follows the child through its info lines (the "test pause"), whatever level the suite logs at.
  const childEnv: NodeJS.ProcessEnv = { ...process.env, EASEL_LOG_LEVEL: "info", EASEL_TEST_CLOCK: "1", EASEL_WEBHOOK_ALLOW_PRIVATE: "1", ...env };
  if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "outbox/harness.ts")], { env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const waitForLine = async (prefix: string, timeoutMs = 120_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = output.split("\n").find((l) => l.startsWith(prefix));
      if (line !== undefined) return line.slice(prefix.length).trim();
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no "${prefix}" from the harness (exit ${child.exitCode})\n${output.slice(-4000)}`);
      await sleep(50);
    }
  };
  return { child, output: () => output, waitForLine };
}

it("kill -9 between a PATCH's commit and its event's hand-off: after a restart on the same data the webhook is delivered, once", { timeout: 300_000 }, async () => {
  const receiver = await startReceiver();
  const dbEnv: Record<string, string> = inject("testDatabase").kind === "postgres" ? { DATABASE_URL: (await jobsDb()).url! } : { EASEL_DATA_DIR: path.join(dir, "data") };
  const common = { ...dbEnv, HARNESS_HOOK_URL: receiver.url("/hook"), HARNESS_TITLE: "after the kill" };

  const first = start({ ...common, HARNESS_MODE: "write", EASEL_TEST_OUTBOX_PAUSE_MS: "120000" });
  await first.waitForLine("harness:ready");
  // The pause is announced by a log line (JSON): wait for its message anywhere in the output.
  await waitFor(() => first.output().includes('"msg":"test pause after commit'), 120_000, "the test pause");
  first.child.kill("SIGKILL");
  await exited(first.child);
  expect(first.output()).not.toContain("harness:patched");
  expect(receiver.at("/hook")).toHaveLength(0);

  const second = start({ ...common, HARNESS_MODE: "serve" });
  // The write had committed before the kill ...
  expect(await second.waitForLine("harness:title")).toBe("after the kill");
  // ... and its event, stored with it, is handed on by the restarted server's relay.
  const [delivery] = await waitFor(() => receiver.at("/hook").length >= 1 && receiver.at("/hook"), 90_000, "the asset_updated delivery");
  const payload = JSON.parse(delivery.body);
  expect(payload).toMatchObject({ event: "asset_updated", asset: { token: "outboxkill", title: "after the kill", changes: { title: { old: "before the kill", new: "after the kill" } } } });
  await sleep(3000);
  expect(receiver.at("/hook")).toHaveLength(1);
  second.child.kill("SIGTERM");
  await exited(second.child);
  console.log(`[outbox] kill -9 after commit (${inject("testDatabase").kind}): delivered after restart, once`);
});
