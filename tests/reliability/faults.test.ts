import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as deliveriesRoute from "../../app/v1/trigger/[id]/deliveries/route";
import * as triggerRoute from "../../app/v1/trigger/route";
import { emitAssetChanged } from "../../lib/assets/events";
import type { Board, Workspace } from "../../lib/db/schema";
import { getDeps } from "../../lib/deps";
import { call } from "../helpers/call-route";
import { insertAsset, newApiToken, newBoard, newWorkspace } from "../helpers/factories";
import { useWebhookJobs, waitFor } from "../webhooks/helpers";

/**
 * Webhook receiver down, then back: nothing listens on the receiver's port for the first two
 * attempts (connection refused, not an HTTP error — tests/webhooks/delivery.test.ts covers
 * 500, 500, 200), then a receiver starts on that port; the third attempt of the schedule
 * arrives, once, signed, with the event's one webhook-id, and the log shows failed, failed,
 * succeeded. Schedule "0,1,2": attempts at 0 s, 1 s, 3 s.
 */
let deps: Awaited<ReturnType<typeof useWebhookJobs>>;
let ws: Workspace;
let board: Board;
let token: string;
let server: http.Server | null = null;

beforeAll(async () => {
  deps = await useWebhookJobs({ EASEL_WEBHOOK_RETRY_SCHEDULE: "0,1,2", EASEL_PUBLIC_URL: "https://easel.example.com" });
  ws = await newWorkspace(deps.db);
  board = await newBoard(deps.db, ws);
  token = await newApiToken(deps.db, ws, { webhooks: true });
});
afterAll(async () => {
  if (server) {
    server.closeAllConnections();
    await new Promise((r) => server!.close(r));
  }
});

/** A loopback port nobody listens on (bound, then released). */
async function freePort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe("webhook receiver down, then back", () => {
  it("connection refused twice, then the receiver returns: delivered once on the schedule, same webhook-id, all in the log", async () => {
    const port = await freePort();
    const res = await call(triggerRoute.POST, { method: "POST", path: "/v1/trigger", token, json: { hook: "asset_added", hook_url: `http://127.0.0.1:${port}/hook`, organization_slug: ws.slug, collection_token: board.token } });
    expect(res.status, res.text).toBe(201);
    const { id, secret } = res.body as { id: string; secret: string };
    const log = async () => (await call(deliveriesRoute.GET, { path: `/v1/trigger/${id}/deliveries`, token, params: { id } })).body.data as any[];

    const asset = await insertAsset(deps.db, ws, { boardIds: [board.id] });
    const started = Date.now();
    await emitAssetChanged(await getDeps(), { asset, kind: "asset_added" });
    const failed = await waitFor(async () => {
      const l = await log();
      return l.length >= 2 && l;
    }, 15_000, "two failed attempts");
    expect(failed.map((d) => [d.attempt, d.status, d.response_status])).toEqual([
      [2, "failed", null],
      [1, "failed", null],
    ]);

    const received: { headers: http.IncomingHttpHeaders; body: string; at: number }[] = [];
    server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      res.end("ok");
    });
    server.keepAliveTimeout = 1;
    await new Promise<void>((r) => server!.listen(port, "127.0.0.1", r));

    const done = await waitFor(async () => {
      const l = await log();
      return l.length >= 3 && l;
    }, 15_000, "the third attempt");
    expect(done.map((d) => [d.attempt, d.status, d.response_status])).toEqual([
      [3, "succeeded", 200],
      [2, "failed", null],
      [1, "failed", null],
    ]);
    expect(received).toHaveLength(1);
    const headers = Object.fromEntries(Object.entries(received[0].headers).filter(([, v]) => typeof v === "string")) as Record<string, string>;
    expect(new Webhook(secret).verify(received[0].body, headers)).toBeTruthy();
    expect(new Set(done.map((d) => d.message_id))).toEqual(new Set([headers["webhook-id"]]));
    console.log(`[faults] receiver down for attempts 1-2 (${done[2].error ?? "refused"}), back for attempt 3: delivered ${((received[0].at - started) / 1000).toFixed(1)} s after the event, 1 request, same webhook-id`);
  }, 40_000);
});
