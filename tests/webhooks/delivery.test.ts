import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it, vi } from "vitest";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import * as resendRoute from "../../app/v1/trigger/[id]/deliveries/[delivery_id]/resend/route";
import * as deliveriesRoute from "../../app/v1/trigger/[id]/deliveries/route";
import * as renewRoute from "../../app/v1/trigger/[id]/renew/route";
import * as triggerIdRoute from "../../app/v1/trigger/[id]/route";
import * as triggerRoute from "../../app/v1/trigger/route";
import { emitAssetChanged } from "../../lib/assets/events";
import { triggers, type Asset, type Board, type Workspace } from "../../lib/db/schema";
import { getDeps } from "../../lib/deps";
import { resetEnvCache } from "../../lib/env";
import addedSample from "../../lib/webhooks/sample-events/asset_added.json";
import deletedSample from "../../lib/webhooks/sample-events/asset_deleted.json";
import updatedSample from "../../lib/webhooks/sample-events/asset_updated.json";
import { call } from "../helpers/call-route";
import { insertAsset, newApiToken, newBoard, newWorkspace, randomPng } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { sleep, startReceiver, useWebhookJobs, waitFor, type Received } from "./helpers";

/**
 * The delivery path for real: domain writes → asset/changed → fan-out function → one delivery run
 * per trigger → signed POSTs to receivers on 127.0.0.1, on the retry schedule "0,1,1" (attempts
 * at 0 s, 1 s, 2 s), all through the embedded executor on this file's database.
 */
const DAY = 86_400_000;
let deps: Awaited<ReturnType<typeof useWebhookJobs>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let ws: Workspace;
let board: Board;
let token: string;

beforeAll(async () => {
  deps = await useWebhookJobs({ EASEL_WEBHOOK_RETRY_SCHEDULE: "0,1,1", EASEL_PUBLIC_URL: "https://easel.example.com" });
  receiver = await startReceiver();
  ws = await newWorkspace(deps.db);
  board = await newBoard(deps.db, ws, { title: "Spring campaign" });
  token = await newApiToken(deps.db, ws, { webhooks: true });
});

let paths = 0;
/** A trigger whose receiver path is its own; returns its id, secret and path. */
async function hookOn(hook: string, on: Board = board, script?: Parameters<typeof receiver.script>[1]) {
  const path = `/hook-${++paths}`;
  if (script) receiver.script(path, script);
  const res = await call(triggerRoute.POST, {
    method: "POST",
    path: "/v1/trigger",
    token,
    json: { hook, hook_url: receiver.url(path), organization_slug: ws.slug, collection_token: on.token },
  });
  expect(res.status, res.text).toBe(201);
  return { id: res.body.id as string, secret: res.body.secret as string, path };
}

const got = (path: string, n = 1, timeoutMs = 15_000) => waitFor(() => receiver.at(path).length >= n && receiver.at(path), timeoutMs, `${n} request(s) at ${path}`);
const payloadOf = (r: Received) => JSON.parse(r.body);

/** Keys of an object, recursively, except under maps whose keys are data (changes, fields). */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return "array";
  if (value === null || typeof value !== "object") return typeof value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === "changes" || k === "fields" ? "map" : shape(v)]));
}

const logOf = async (triggerId: string) =>
  (await call(deliveriesRoute.GET, { path: `/v1/trigger/${triggerId}/deliveries`, token, params: { id: triggerId } })).body;

async function patchTitle(asset: { token: string }, title: string) {
  const res = await call(assetRoute.PATCH, { method: "PATCH", path: `/v1/${ws.slug}/assets/${asset.token}`, token, json: { asset: { title } }, params: { slug: ws.slug, token: asset.token } });
  expect(res.status, res.text).toBe(200);
}

async function deleteAssetVia(assetToken: string) {
  const res = await call(assetRoute.DELETE, { method: "DELETE", path: `/v1/${ws.slug}/assets/${assetToken}`, token, params: { slug: ws.slug, token: assetToken } });
  expect(res.status, res.text).toBe(204);
}

/** An asset_added event for an asset placed directly in the database (what upload_complete emits). */
async function added(asset: Asset) {
  await emitAssetChanged(await getDeps(), { asset, kind: "asset_added" });
}

describe("payloads, exactly per event kind, signed", () => {
  it("asset_added after upload_complete: envelope and full asset fields, verified with the standardwebhooks verifier", async () => {
    const hook = await hookOn("asset_added");
    const { asset } = await uploadAsset(ws, token, deps.store.s3, await randomPng(), { title: "Hero banner", collection_token: board.token });
    const [req] = await got(hook.path);
    const verified = new Webhook(hook.secret).verify(req.body, req.headers);
    const body = payloadOf(req);
    expect(verified).toEqual(body);
    expect(body).toEqual({
      event: "asset_added",
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      organization: { slug: ws.slug, name: ws.name },
      collection: { token: board.token, title: "Spring campaign" },
      asset: {
        id: asset.id,
        token: asset.token,
        title: "Hero banner",
        media_type: "image/png",
        display_url: expect.stringMatching(new RegExp(`^https://easel\\.example\\.com/media/${asset.token}/display\\?exp=\\d+&sig=[\\w-]+$`)),
        created_at: asset.created_at,
        updated_at: asset.updated_at,
        tags: [],
        fields: {},
      },
    });
    expect(Object.keys(body)).toEqual(["event", "timestamp", "organization", "collection", "asset"]);
    expect(Object.keys(body.asset)).toEqual(["id", "token", "title", "media_type", "display_url", "created_at", "updated_at", "tags", "fields"]);
    expect(shape(body)).toEqual(shape(addedSample));
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["webhook-id"]).toMatch(/^msg_/);
    expect(Math.abs(Number(req.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    expect(req.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it("asset_added carries tags and fields", async () => {
    const hook = await hookOn("asset_added");
    const asset = await insertAsset(deps.db, ws, { title: "Tagged", tags: ["hero", "spring"], fields: { sku: "SP-1" }, boardIds: [board.id] });
    await added(asset);
    const [req] = await got(hook.path);
    expect(payloadOf(req).asset).toMatchObject({ id: asset.id, tags: ["hero", "spring"], fields: { sku: "SP-1" } });
  });

  it("asset_updated after a PATCH: id, token, title, updated_at and changes {old, new}", async () => {
    const hook = await hookOn("asset_updated");
    const asset = await insertAsset(deps.db, ws, { title: "Before", boardIds: [board.id] });
    await patchTitle(asset, "After");
    const [req] = await got(hook.path);
    const body = new Webhook(hook.secret).verify(req.body, req.headers) as Record<string, any>;
    expect(body).toEqual({
      event: "asset_updated",
      timestamp: expect.any(String),
      organization: { slug: ws.slug, name: ws.name },
      collection: { token: board.token, title: "Spring campaign" },
      asset: { id: asset.id, token: asset.token, title: "After", updated_at: expect.any(String), changes: { title: { old: "Before", new: "After" } } },
    });
    expect(Object.keys(body.asset)).toEqual(["id", "token", "title", "updated_at", "changes"]);
    expect(Date.parse(body.asset.updated_at)).toBeGreaterThan(asset.updatedAt.getTime());
    expect(shape(body)).toEqual(shape(updatedSample));
  });

  it("asset_deleted after DELETE: id, token and title only", async () => {
    const hook = await hookOn("asset_deleted");
    const asset = await insertAsset(deps.db, ws, { title: "Doomed", boardIds: [board.id] });
    await deleteAssetVia(asset.token);
    const [req] = await got(hook.path);
    const body = new Webhook(hook.secret).verify(req.body, req.headers);
    expect(body).toEqual({
      event: "asset_deleted",
      timestamp: expect.any(String),
      organization: { slug: ws.slug, name: ws.name },
      collection: { token: board.token, title: "Spring campaign" },
      asset: { id: asset.id, token: asset.token, title: "Doomed" },
    });
    expect(shape(body)).toEqual(shape(deletedSample));
  });

  it("a trigger hears only its own event kind", async () => {
    const onlyDeleted = await hookOn("asset_deleted");
    const asset = await insertAsset(deps.db, ws, { boardIds: [board.id] });
    const updated = await hookOn("asset_updated");
    await patchTitle(asset, "Renamed");
    await got(updated.path);
    await added(asset);
    await sleep(1000);
    expect(receiver.at(onlyDeleted.path)).toHaveLength(0);
  });
});

describe("board tree", () => {
  it("a trigger on a parent board fires once for an asset on sub-boards, reporting the watched board", async () => {
    const parent = await newBoard(deps.db, ws, { title: "Parent" });
    const child = await newBoard(deps.db, ws, { title: "Child", parentId: parent.id });
    const grandchild = await newBoard(deps.db, ws, { title: "Grandchild", parentId: child.id });
    const sibling = await newBoard(deps.db, ws, { title: "Sibling", parentId: parent.id });
    const onParent = await hookOn("asset_added", parent);
    const onSibling = await hookOn("asset_added", sibling);
    const onGrandchild = await hookOn("asset_added", grandchild);
    const asset = await insertAsset(deps.db, ws, { boardIds: [grandchild.id, child.id] });
    await added(asset);
    const [req] = await got(onParent.path);
    expect(payloadOf(req).collection).toEqual({ token: parent.token, title: "Parent" });
    expect(payloadOf((await got(onGrandchild.path))[0]).collection).toEqual({ token: grandchild.token, title: "Grandchild" });
    await sleep(1000);
    expect(receiver.at(onParent.path)).toHaveLength(1);
    expect(receiver.at(onSibling.path)).toHaveLength(0);
  });
});

describe("retries", () => {
  it("500, 500, 200: three attempts on the schedule with one webhook-id, each signed, all in the log", async () => {
    const hook = await hookOn("asset_added", board, [500, 500, 200]);
    const asset = await insertAsset(deps.db, ws, { boardIds: [board.id] });
    await added(asset);
    const reqs = await got(hook.path, 3);
    expect(new Set(reqs.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(new Set(reqs.map((r) => r.body)).size).toBe(1);
    for (const r of reqs) expect(new Webhook(hook.secret).verify(r.body, r.headers)).toEqual(payloadOf(reqs[0]));
    expect(reqs[1].at - reqs[0].at).toBeGreaterThanOrEqual(900);
    expect(reqs[2].at - reqs[1].at).toBeGreaterThanOrEqual(900);
    await sleep(1500);
    expect(receiver.at(hook.path)).toHaveLength(3);

    const log = await waitFor(async () => {
      const l = await logOf(hook.id);
      return l.data.length === 3 && l;
    });
    expect(log.data.map((d: any) => [d.attempt, d.status, d.response_status])).toEqual([
      [3, "succeeded", 200],
      [2, "failed", 500],
      [1, "failed", 500],
    ]);
    expect(log.data[2].error).toBe("HTTP 500: receiver says 500");
    expect(log.data.every((d: any) => d.message_id === reqs[0].headers["webhook-id"] && d.event === "asset_added" && d.duration_ms >= 0)).toBe(true);
    expect(JSON.stringify(log.data[0].payload)).toBe(reqs[0].body);
    expect(log.pagy.total_count).toBe(3);
  });

  it("gives up after the last attempt of the schedule", async () => {
    const hook = await hookOn("asset_added", board, [503]);
    await added(await insertAsset(deps.db, ws, { boardIds: [board.id] }));
    await got(hook.path, 3);
    await sleep(2500);
    expect(receiver.at(hook.path)).toHaveLength(3);
  });

  it("a receiver that does not answer within 10 s is retried", async () => {
    const hook = await hookOn("asset_added", board, ["hang", 200]);
    await added(await insertAsset(deps.db, ws, { boardIds: [board.id] }));
    const reqs = await got(hook.path, 2, 25_000);
    expect(reqs[1].at - reqs[0].at).toBeGreaterThanOrEqual(10_000);
    expect(reqs[1].headers["webhook-id"]).toBe(reqs[0].headers["webhook-id"]);
    const log = await waitFor(async () => {
      const l = await logOf(hook.id);
      return l.data.length === 2 && l;
    });
    expect(log.data[1]).toMatchObject({ attempt: 1, status: "failed", response_status: null, error: expect.stringMatching(/^timeout: /) });
    expect(log.data[1].duration_ms).toBeGreaterThanOrEqual(9_900);
    expect(log.data[0]).toMatchObject({ attempt: 2, status: "succeeded", response_status: 200 });
  }, 40_000);

  it("a redirect is not followed and counts as a failure", async () => {
    const hook = await hookOn("asset_added", board, [302, 200]);
    await added(await insertAsset(deps.db, ws, { boardIds: [board.id] }));
    await got(hook.path, 2);
    const log = await waitFor(async () => {
      const l = await logOf(hook.id);
      return l.data.length === 2 && l;
    });
    expect(log.data[1]).toMatchObject({ status: "failed", response_status: 302 });
  });
});

describe("ending deliveries", () => {
  it("410 Gone disables the trigger: no retry, no further events; renewing re-enables it", async () => {
    const hook = await hookOn("asset_added", board, [410, 200]);
    await added(await insertAsset(deps.db, ws, { boardIds: [board.id] }));
    await got(hook.path);
    await sleep(2500);
    expect(receiver.at(hook.path)).toHaveLength(1);
    const [row] = await deps.db.select().from(triggers).where(eq(triggers.id, hook.id));
    expect(row.disabledAt).toBeInstanceOf(Date);
    const listed = (await call(triggerRoute.GET, { path: "/v1/trigger", token })).body.data.find((t: any) => t.id === hook.id);
    expect(listed).toMatchObject({ status: "disabled", disabled_reason: "receiver_gone" });

    await added(await insertAsset(deps.db, ws, { boardIds: [board.id] }));
    await sleep(1500);
    expect(receiver.at(hook.path)).toHaveLength(1);

    expect((await call(renewRoute.POST, { method: "POST", path: `/v1/trigger/${hook.id}/renew`, token, params: { id: hook.id } })).body.status).toBe("active");
    await added(await insertAsset(deps.db, ws, { boardIds: [board.id] }));
    await got(hook.path, 2);
  });

  it("deleting a trigger stops its scheduled retries and any later event", async () => {
    const hook = await hookOn("asset_added", board, [500]);
    await added(await insertAsset(deps.db, ws, { boardIds: [board.id] }));
    await got(hook.path);
    const res = await call(triggerIdRoute.DELETE, { method: "DELETE", path: `/v1/trigger/${hook.id}`, token, params: { id: hook.id } });
    expect(res.status).toBe(204);
    // Normally 1; 2 only if the retry due 1 s after the first attempt beat the DELETE on a loaded machine.
    const atDeletion = receiver.at(hook.path).length;
    await added(await insertAsset(deps.db, ws, { boardIds: [board.id] }));
    await sleep(3000);
    expect(atDeletion).toBeLessThan(3);
    expect(receiver.at(hook.path)).toHaveLength(atDeletion);
  });

  it("an expired trigger gets nothing: checked at fan-out (test clock past 90 days)", async () => {
    const hook = await hookOn("asset_added");
    const control = await hookOn("asset_added");
    deps.time.advance(91 * DAY);
    try {
      // The control trigger, renewed at the moved time, shows the event did fan out.
      await call(renewRoute.POST, { method: "POST", path: `/v1/trigger/${control.id}/renew`, token, params: { id: control.id } });
      await added(await insertAsset(deps.db, ws, { boardIds: [board.id] }));
      await got(control.path);
      await sleep(500);
      expect(receiver.at(hook.path)).toHaveLength(0);
    } finally {
      deps.time.reset();
    }
  });

  it("a trigger that expires between attempts gets no further attempt: checked at delivery", async () => {
    const hook = await hookOn("asset_added", board, [500, 200]);
    await added(await insertAsset(deps.db, ws, { boardIds: [board.id] }));
    await got(hook.path);
    deps.time.advance(91 * DAY);
    try {
      await sleep(2500);
      expect(receiver.at(hook.path)).toHaveLength(1);
      expect((await logOf(hook.id)).data).toHaveLength(1);
    } finally {
      deps.time.reset();
    }
  });
});

describe("SSRF at delivery", () => {
  it("a loopback receiver accepted with EASEL_WEBHOOK_ALLOW_PRIVATE is refused once the flag is off, and logged", async () => {
    const hook = await hookOn("asset_added");
    vi.stubEnv("EASEL_WEBHOOK_ALLOW_PRIVATE", "");
    resetEnvCache();
    try {
      await added(await insertAsset(deps.db, ws, { boardIds: [board.id] }));
      const log = await waitFor(async () => {
        const l = await logOf(hook.id);
        return l.data.length === 3 && l;
      });
      for (const d of log.data) expect(d).toMatchObject({ status: "failed", response_status: null, error: expect.stringMatching(/^private_address: 127\.0\.0\.1 is not a public address/) });
      expect(receiver.at(hook.path)).toHaveLength(0);
    } finally {
      vi.stubEnv("EASEL_WEBHOOK_ALLOW_PRIVATE", "1");
      resetEnvCache();
    }
  });
});

describe("resend", () => {
  it("sends the logged message again: same body, same webhook-id, next attempt number", async () => {
    const hook = await hookOn("asset_added");
    await added(await insertAsset(deps.db, ws, { boardIds: [board.id] }));
    const [first] = await got(hook.path);
    const log = await waitFor(async () => {
      const l = await logOf(hook.id);
      return l.data.length === 1 && l;
    });
    const deliveryId = String(log.data[0].id);
    const res = await call(resendRoute.POST, { method: "POST", path: `/v1/trigger/${hook.id}/deliveries/${deliveryId}/resend`, token, params: { id: hook.id, delivery_id: deliveryId } });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ trigger_id: hook.id, message_id: first.headers["webhook-id"], status: "queued" });
    const [, again] = await got(hook.path, 2);
    expect(again.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(again.body).toBe(first.body);
    expect(new Webhook(hook.secret).verify(again.body, again.headers)).toEqual(payloadOf(first));
    const after = await waitFor(async () => {
      const l = await logOf(hook.id);
      return l.data.length === 2 && l;
    });
    expect(after.data[0]).toMatchObject({ attempt: 2, status: "succeeded", message_id: first.headers["webhook-id"] });
  });
});
