import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as triggerRoute from "../../app/v1/trigger/route";
import { webhookDeliveries, type Board, type Workspace } from "../../lib/db/schema";
import { getDeps } from "../../lib/deps";
import { assetChanged } from "../../lib/jobs/events";
import { attemptDelivery } from "../../lib/webhooks/deliver";
import { messageIdFor } from "../../lib/webhooks/sign";
import { call } from "../helpers/call-route";
import { testDb } from "../helpers/db";
import { insertAsset, newApiToken, newBoard, newWorkspace } from "../helpers/factories";
import { sleep, startReceiver, useWebhookJobs, waitFor } from "../webhooks/helpers";

/**
 * Deliveries racing each other on PostgreSQL (on the embedded database every statement runs in
 * turn, so there is nothing to race): retries and resends of one message logged concurrently, and
 * one event enqueued many times at once.
 */
const onPostgres = (await testDb()).kind === "postgres";

let deps: Awaited<ReturnType<typeof useWebhookJobs>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let ws: Workspace;
let board: Board;
let token: string;

beforeAll(async () => {
  if (!onPostgres) return;
  deps = await useWebhookJobs();
  receiver = await startReceiver();
  ws = await newWorkspace(deps.db);
  board = await newBoard(deps.db, ws);
  token = await newApiToken(deps.db, ws, { webhooks: true });
});

async function hookOn(path: string) {
  const res = await call(triggerRoute.POST, {
    method: "POST",
    path: "/v1/trigger",
    token,
    json: { hook: "asset_updated", hook_url: receiver.url(path), organization_slug: ws.slug, collection_token: board.token },
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

describe.skipIf(!onPostgres)("webhook deliveries racing on PostgreSQL", () => {
  it("20 concurrent attempts of one message: 20 requests with one webhook-id, logged as attempts 1 to 20", async () => {
    const triggerId = await hookOn("/race-attempts");
    const messageId = messageIdFor("race-event", triggerId);
    const payload = { event: "asset_updated", asset: { id: 1, token: "x", title: "race" } };
    const results = await Promise.all(Array.from({ length: 20 }, async () => attemptDelivery(await getDeps(), { triggerId, messageId, payload })));
    expect(results.every((r) => r.outcome === "delivered")).toBe(true);
    const requests = receiver.at("/race-attempts");
    expect(requests).toHaveLength(20);
    expect(new Set(requests.map((r) => r.headers["webhook-id"]))).toEqual(new Set([messageId]));
    const rows = await deps.db
      .select({ attempt: webhookDeliveries.attempt })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.triggerId, triggerId), eq(webhookDeliveries.messageId, messageId)));
    expect(rows.map((r) => r.attempt).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(results.map((r) => (r.outcome === "delivered" ? r.attempt : 0)).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  }, 60_000);

  it("one asset change enqueued 20 times at once (one event id): each trigger gets it once", async () => {
    const ids = [await hookOn("/race-event-a"), await hookOn("/race-event-b")];
    const asset = await insertAsset(deps.db, ws, { boardIds: [board.id] });
    const data = { assetId: asset.id, workspaceId: ws.id, kind: "asset_updated" as const, changes: { title: { old: "a", new: "b" } }, occurredAt: new Date().toISOString() };
    await Promise.all(Array.from({ length: 20 }, async () => (await getDeps()).jobs.send(assetChanged, data, { id: `race-${asset.id}` })));
    await waitFor(() => receiver.at("/race-event-a").length >= 1 && receiver.at("/race-event-b").length >= 1, 20_000, "both deliveries");
    await sleep(1500); // time for any duplicate to arrive
    expect(receiver.at("/race-event-a")).toHaveLength(1);
    expect(receiver.at("/race-event-b")).toHaveLength(1);
    for (const id of ids) {
      const rows = await deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.triggerId, id));
      expect(rows.map((r) => [r.attempt, r.status])).toEqual([[1, "succeeded"]]);
    }
  }, 60_000);
});
