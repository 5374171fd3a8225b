/**
 * A process running the webhook functions on the embedded executor, for the kill -9 test
 * (tests/webhooks/kill-batch.test.ts). Receivers live in the test process, so they outlive this one.
 *   HARNESS_DB        a PGlite data dir, or a postgres:// URL
 *   HARNESS_HOOK_BASE the receivers' base URL; trigger i posts to <base>/kill-<i>
 *   HARNESS_TRIGGERS  how many triggers (first life)
 *   HARNESS_SEND      "1": create the triggers and send one asset_added event (the first life only)
 * Prints "harness:sent" once the event is stored, and "harness:done <json>" once every run has
 * ended and nothing is queued (then exits), with each trigger's delivery log.
 */
import { sql } from "drizzle-orm";
import { serve } from "inngest/next";
import { queryRows } from "../../../lib/db";
import { openDb } from "../../../lib/db/client";
import * as schema from "../../../lib/db/schema";
import { setDeps, type Deps } from "../../../lib/deps";
import { inngest, useSigningKey } from "../../../lib/jobs/client";
import { assetChanged } from "../../../lib/jobs/events";
import { Executor, inProcessTransport, signingKeyFromSecret } from "../../../lib/jobs/executor";
import { inngestJobSender } from "../../../lib/jobs/send";
import { getSecret } from "../../../lib/secrets";
import { newToken } from "../../../lib/tokens";
import { deliverWebhookJob } from "../../../lib/webhooks/deliver.job";
import { fanOutWebhooksJob } from "../../../lib/webhooks/fan-out.job";
import { TRIGGER_LIFETIME_MS } from "../../../lib/webhooks/policy";
import { newSigningSecret } from "../../../lib/webhooks/sign";
import { createWorkspace } from "../../../lib/workspaces/manage-workspaces";

const target = process.env.HARNESS_DB!;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function sendTheEvent(deps: Deps) {
  const now = new Date();
  const ws = await createWorkspace(deps.db, { slug: "kill-batch", name: "Kill", now });
  const [board] = await deps.db.insert(schema.boards).values({ workspaceId: ws.id, token: newToken(), title: "Watched", createdAt: now, updatedAt: now }).returning();
  // Ids in the order of the paths: a fan-out plans triggers by id, so trigger i is in batch floor(i / FAN_OUT_BATCH).
  const triggers = Array.from({ length: Number(process.env.HARNESS_TRIGGERS) }, (_, i) => ({
    id: `trg_kill${String(i).padStart(5, "0")}`,
    workspaceId: ws.id,
    boardId: board.id,
    hook: "asset_added" as const,
    hookUrl: `${process.env.HARNESS_HOOK_BASE}/kill-${i}`,
    secret: newSigningSecret(),
    expirationDate: new Date(now.getTime() + TRIGGER_LIFETIME_MS),
    createdAt: now,
  }));
  await deps.db.insert(schema.triggers).values(triggers);
  const [asset] = await deps.db
    .insert(schema.assets)
    .values({ workspaceId: ws.id, token: newToken(), title: "Killed mid-batch", mediaType: "image/png", size: 1, md5: "0".repeat(32), storageKey: "kill/1", createdAt: now, updatedAt: now })
    .returning();
  await deps.db.insert(schema.assetBoards).values({ assetId: asset.id, boardId: board.id, createdAt: now });
  await deps.jobs.send(assetChanged, { assetId: asset.id, workspaceId: ws.id, kind: "asset_added", occurredAt: now.toISOString() });
}

async function main() {
  const handle = target.startsWith("postgres") ? await openDb({ databaseUrl: target, dataDir: "", role: "server" }) : await openDb({ dataDir: target, role: "server" });
  const { db } = handle;
  const deps = { db, clock: () => new Date(), jobs: inngestJobSender(), storage: () => { throw new Error("no storage here"); } } as Deps;
  setDeps(deps);
  await useSigningKey(inngest, db);
  const executor = new Executor({
    db,
    clock: deps.clock,
    signingKey: signingKeyFromSecret(await getSecret(db, "jobs_signing_key")),
    serveUrl: "http://127.0.0.1:3999/api/inngest",
    transport: inProcessTransport(serve({ client: inngest, functions: [fanOutWebhooksJob, deliverWebhookJob], enableUnauthedSync: false })),
    pollMs: 100,
    leaseMs: 2000,
    backoffMs: () => 100,
    reclaimLeasesOnStart: handle.driver === "pglite",
    log: { info: (m) => console.log(m), warn: (m) => console.warn(m), error: (m) => console.error(m) },
  });
  await executor.sync();
  executor.start();
  if (process.env.HARNESS_SEND === "1") {
    await sendTheEvent(deps);
    console.log("harness:sent");
  }
  for (;;) {
    const [{ unfinished, queued, runs }] = await queryRows<{ unfinished: number; queued: number; runs: number }>(
      db,
      sql`select (select count(*)::int from job_runs where status not in ('completed', 'failed')) as unfinished, (select count(*)::int from job_queue) as queued, (select count(*)::int from job_runs) as runs`,
    );
    if (runs > 0 && unfinished === 0 && queued === 0) break;
    await pause(100);
  }
  const runs = await queryRows<{ function_id: string; status: string }>(db, sql`select function_id, status from job_runs order by created_at`);
  const log = await queryRows<{ path: string; message_id: string; attempt: number; status: string; error: string | null }>(
    db,
    sql`select t.hook_url as path, d.message_id, d.attempt, d.status, d.error from webhook_deliveries d join triggers t on t.id = d.trigger_id order by d.id`,
  );
  console.log(`harness:done ${JSON.stringify({ runs, log: log.map((l) => ({ ...l, path: new URL(l.path).pathname })) })}`);
  await executor.stop();
  await handle.close();
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
