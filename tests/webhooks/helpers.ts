import http from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "inngest/next";
import { afterAll, vi } from "vitest";
import { setDeps, type Deps } from "../../lib/deps";
import { resetEnvCache } from "../../lib/env";
import { inngest, useSigningKey } from "../../lib/jobs/client";
import { Executor, inProcessTransport, signingKeyFromSecret } from "../../lib/jobs/executor";
import { inngestJobSender } from "../../lib/jobs/send";
import { getSecret } from "../../lib/secrets";
import { deliverWebhookJob } from "../../lib/webhooks/deliver.job";
import { fanOutWebhooksJob } from "../../lib/webhooks/fan-out.job";
import { useTestDeps } from "../helpers/deps";

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One request a receiver got. */
export type Received = { path: string; headers: Record<string, string>; body: string; at: number };

/** What a receiver path answers: a status, or "hang" (never answers: the sender's timeout fires). */
export type Reply = number | "hang";

/**
 * A webhook receiver on 127.0.0.1: records every request; each path answers its scripted replies
 * in order (the last one repeats), 200 when none are scripted.
 */
export async function startReceiver() {
  const received: Received[] = [];
  const scripts = new Map<string, Reply[]>();
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
    const path = req.url ?? "/";
    received.push({ path, headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
    const script = scripts.get(path) ?? [];
    const reply = script.length > 1 ? script.shift()! : (script[0] ?? 200);
    if (reply === "hang") {
      hanging.add(res);
      return;
    }
    res.writeHead(reply, { "content-type": "text/plain" });
    res.end(reply >= 300 ? `receiver says ${reply}` : "ok");
  });
  server.keepAliveTimeout = 1;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((r) => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close(() => r());
    });
  cleanups.push(close);
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    at: (path: string) => received.filter((r) => r.path === path),
    script: (path: string, replies: Reply[]) => scripts.set(path, [...replies]),
    close,
  };
}

/**
 * Runs the webhook functions for real: domain code's `deps.jobs` sends to the embedded executor,
 * which calls the fan-out and delivery functions in-process on the test database, sleeping its
 * durable sleeps on the test clock.
 */
export async function startWebhookJobs(deps: Deps) {
  setDeps({ ...deps, jobs: inngestJobSender() });
  await useSigningKey(inngest, deps.db);
  const signingKey = signingKeyFromSecret(await getSecret(deps.db, "jobs_signing_key"));
  const handlers = serve({ client: inngest, functions: [fanOutWebhooksJob, deliverWebhookJob], enableUnauthedSync: false });
  const quiet = { info: () => undefined, warn: (m: string) => console.warn(m), error: (m: string) => console.error(m) };
  const executor = new Executor({
    db: deps.db,
    clock: deps.clock,
    signingKey,
    serveUrl: "http://127.0.0.1:3999/api/inngest",
    transport: inProcessTransport(handlers),
    concurrency: 8,
    pollMs: 50,
    leaseMs: 30_000,
    backoffMs: () => 50,
    log: quiet,
  });
  await executor.sync();
  executor.start();
  cleanups.push(() => executor.stop());
  return executor;
}

export async function waitFor<T>(probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs = 20_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The deps of a file that runs the webhook functions for real: `env` stubbed on top of
 * EASEL_WEBHOOK_ALLOW_PRIVATE=1 (receivers are on loopback), a database of the file's own on
 * PostgreSQL (its executor, with this file's retry schedule, must not run other files' jobs from a
 * shared queue), and the executor started. The stubs are undone after the file.
 */
export async function useWebhookJobs(env: Record<string, string> = {}) {
  vi.stubEnv("EASEL_WEBHOOK_ALLOW_PRIVATE", "1");
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  resetEnvCache();
  cleanups.push(() => {
    vi.unstubAllEnvs();
    resetEnvCache();
  });
  const deps = await useTestDeps({ isolated: true });
  await startWebhookJobs(deps);
  return deps;
}
