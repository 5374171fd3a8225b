import { eq, sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { beforeAll, expect, it } from "vitest";
import { emitAssetChanged } from "../../lib/assets/events";
import { queryRows } from "../../lib/db";
import { triggers, webhookDeliveries } from "../../lib/db/schema";
import { getDeps } from "../../lib/deps";
import { createTrigger } from "../../lib/webhooks";
import { FAN_OUT_BATCH } from "../../lib/webhooks/fan-out.job";
import { insertAsset, newBoard, newWorkspace } from "../helpers/factories";
import { sleep, startReceiver, useWebhookJobs, waitFor } from "./helpers";

/**
 * One event to 200 triggers, where every 7th receiver answers 500 once and then 200: the fan-out
 * makes every first attempt itself, in batches of FAN_OUT_BATCH, and only the failed ones become
 * delivery runs of their own, each retried alone on the schedule ("0,1,1": the retry 1 s after the
 * failed attempt); the triggers that answered 200 are never sent the message again.
 */
const TRIGGERS = 200;
const fails = (i: number) => i % 7 === 0;
let deps: Awaited<ReturnType<typeof useWebhookJobs>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  deps = await useWebhookJobs({ EASEL_WEBHOOK_RETRY_SCHEDULE: "0,1,1" });
  receiver = await startReceiver();
});

it("200 triggers, every 7th receiver failing once: each failing trigger is retried alone on its schedule, the others never again", { timeout: 120_000 }, async () => {
  const ws = await newWorkspace(deps.db);
  const board = await newBoard(deps.db, ws);
  const admin = { kind: "session" as const, userId: 0, email: "admin@localhost", owner: true, roles: new Map() };
  const hooks: { id: string; secret: string; path: string; failing: boolean }[] = [];
  for (let i = 0; i < TRIGGERS; i++) {
    const path = `/batch-${i}`;
    if (fails(i)) receiver.script(path, [500, 200]);
    const t = await createTrigger(await getDeps(), admin, { hook: "asset_added", hookUrl: receiver.url(path), organizationSlug: ws.slug, collectionToken: board.token });
    hooks.push({ id: t.id, secret: t.secret, path, failing: fails(i) });
  }
  const failing = hooks.filter((h) => h.failing);
  expect(failing).toHaveLength(29);

  const asset = await insertAsset(deps.db, ws, { boardIds: [board.id] });
  await emitAssetChanged(await getDeps(), { asset, kind: "asset_added" });
  await waitFor(() => hooks.every((h) => receiver.at(h.path).length >= (h.failing ? 2 : 1)), 60_000, "every first attempt and every retry");
  // Past the rest of the schedule: anything sent again would have arrived by now.
  await sleep(3000);

  const messageIds = new Set<string>();
  for (const h of hooks) {
    const reqs = receiver.at(h.path);
    expect(reqs, h.path).toHaveLength(h.failing ? 2 : 1);
    expect(new Set(reqs.map((r) => r.headers["webhook-id"])).size).toBe(1);
    for (const r of reqs) new Webhook(h.secret).verify(r.body, r.headers);
    if (h.failing) expect(reqs[1].at - reqs[0].at).toBeGreaterThanOrEqual(900);
    messageIds.add(reqs[0].headers["webhook-id"]);
  }
  expect(messageIds.size).toBe(TRIGGERS);

  // The log: one row per attempt, in one trigger's numbering.
  const rows = await deps.db
    .select({ triggerId: webhookDeliveries.triggerId, attempt: webhookDeliveries.attempt, status: webhookDeliveries.status, responseStatus: webhookDeliveries.responseStatus })
    .from(webhookDeliveries)
    .innerJoin(triggers, eq(triggers.id, webhookDeliveries.triggerId))
    .where(eq(triggers.boardId, board.id));
  const logOf = (id: string) => rows.filter((r) => r.triggerId === id).sort((a, b) => a.attempt - b.attempt).map((r) => [r.attempt, r.status, r.responseStatus]);
  for (const h of hooks) {
    expect(logOf(h.id), h.path).toEqual(h.failing ? [[1, "failed", 500], [2, "succeeded", 200]] : [[1, "succeeded", 200]]);
  }

  // The runs: one fan-out that made the first attempts in batches, and one delivery run per failing trigger, alone.
  const runs = await queryRows<{ function_id: string; status: string; data: { triggerId: string; attemptsMade?: number }; id: string }>(
    deps.db,
    sql`select r.id, r.function_id, r.status, e.payload->'data' as data from job_runs r join job_events e on e.id = r.event_id`,
  );
  const fanOuts = runs.filter((r) => r.function_id.endsWith("webhooks-fan-out"));
  expect(fanOuts.map((r) => r.status)).toEqual(["completed"]);
  const steps = await queryRows<{ name: string }>(deps.db, sql`select name from job_steps where run_id = ${fanOuts[0].id} order by name`);
  expect(steps.map((s) => s.name)).toEqual(Array.from({ length: Math.ceil(TRIGGERS / FAN_OUT_BATCH) }, (_, i) => `deliver-batch-${i + 1}`).concat("plan-deliveries"));
  const deliveries = runs.filter((r) => r.function_id.endsWith("webhooks-deliver"));
  expect(deliveries.map((r) => r.data.triggerId).sort()).toEqual(failing.map((h) => h.id).sort());
  expect(deliveries.every((r) => r.status === "completed" && r.data.attemptsMade === 1)).toBe(true);
  // What the runs memoized and sent names triggers, never their secrets.
  const [{ n: secrets }] = await queryRows<{ n: number }>(
    deps.db,
    sql`select (select count(*) from job_steps where result::text like '%whsec_%') + (select count(*) from job_events where payload::text like '%whsec_%') as n`,
  );
  expect(Number(secrets)).toBe(0);
});
