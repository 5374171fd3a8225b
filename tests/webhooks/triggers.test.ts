import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as resendRoute from "../../app/v1/trigger/[id]/deliveries/[delivery_id]/resend/route";
import * as deliveriesRoute from "../../app/v1/trigger/[id]/deliveries/route";
import * as renewRoute from "../../app/v1/trigger/[id]/renew/route";
import * as triggerIdRoute from "../../app/v1/trigger/[id]/route";
import * as triggerRoute from "../../app/v1/trigger/route";
import type { Board, Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError, expectValidation } from "../helpers/envelopes";
import { newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";

/** A public address literal: passes the SSRF guard without a DNS lookup. */
const PUBLIC_URL = "https://93.184.215.14/easel-hook";
const DAY = 86_400_000;

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let board: Board;
let hooks: string;

beforeAll(async () => {
  vi.stubEnv("EASEL_WEBHOOK_ALLOW_PRIVATE", "");
  resetEnvCache();
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  board = await newBoard(deps.db, ws, { title: "Campaign" });
  hooks = await newApiToken(deps.db, ws, { webhooks: true });
});
afterAll(() => {
  vi.unstubAllEnvs();
  resetEnvCache();
});

const body = (over: Record<string, unknown> = {}) => ({ hook: "asset_added", hook_url: PUBLIC_URL, organization_slug: ws.slug, collection_token: board.token, ...over });
const create = (token: string | null, json: unknown, headers?: Record<string, string>) =>
  call(triggerRoute.POST, { method: "POST", path: "/v1/trigger", token, json, headers });
const list = (token: string, query = "") => call(triggerRoute.GET, { path: `/v1/trigger${query}`, token });
const remove = (token: string, id: string) => call(triggerIdRoute.DELETE, { method: "DELETE", path: `/v1/trigger/${id}`, token, params: { id } });
const renew = (token: string, id: string) => call(renewRoute.POST, { method: "POST", path: `/v1/trigger/${id}/renew`, token, params: { id } });
const deliveries = (token: string, id: string, query = "") => call(deliveriesRoute.GET, { path: `/v1/trigger/${id}/deliveries${query}`, token, params: { id } });
const resend = (token: string, id: string, deliveryId: string) =>
  call(resendRoute.POST, { method: "POST", path: `/v1/trigger/${id}/deliveries/${deliveryId}/resend`, token, params: { id, delivery_id: deliveryId } });

describe("POST /v1/trigger", () => {
  it("201 with the bare trigger: id, hook, hook_url, organization_slug, collection_token, expiration_date (90 days), secret", async () => {
    const before = deps.clock().getTime();
    const res = await create(hooks, body({ hook: "asset_updated" }));
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["collection_token", "expiration_date", "hook", "hook_url", "id", "organization_slug", "secret"]);
    expect(res.body).toMatchObject({ hook: "asset_updated", hook_url: PUBLIC_URL, organization_slug: ws.slug, collection_token: board.token });
    expect(res.body.id).toMatch(/^trg_[A-Za-z0-9]{24}$/);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const expires = Date.parse(res.body.expiration_date);
    expect(expires - before).toBeGreaterThanOrEqual(90 * DAY);
    expect(expires - before).toBeLessThan(90 * DAY + 60_000);
  });

  it("accepts each of the three hooks, and plain http", async () => {
    for (const hook of ["asset_added", "asset_updated", "asset_deleted"]) expect((await create(hooks, body({ hook }))).status).toBe(201);
    expect((await create(hooks, body({ hook_url: "http://93.184.215.14/x" }))).status).toBe(201);
  });

  it("ladder: 401, 403 board token, 403 webhook permission, 403 scope", async () => {
    expectError(await create(null, body()), 401, "unauthenticated");
    expectError(await create(await newBoardToken(deps.db, ws, board.token), body()), 403, "board_scoped_token");
    expectError(await create(await newApiToken(deps.db, ws), body()), 403, "webhook_permission_required");
    expectError(await create(await newApiToken(deps.db, ws, { scopes: ["read"], webhooks: true }), body()), 403, "insufficient_scope");
  });

  it("422 validation_failed naming the field; 400 on a body that is not JSON", async () => {
    expectValidation(await create(hooks, body({ hook: "asset_renamed" })), "hook");
    for (const field of ["hook", "hook_url", "organization_slug", "collection_token"]) {
      const b: Record<string, unknown> = body();
      delete b[field];
      expectValidation(await create(hooks, b), field);
    }
    expectError(await call(triggerRoute.POST, { method: "POST", path: "/v1/trigger", token: hooks, body: "{nope" }), 400, "invalid_json");
  });

  it("404 workspace_not_found for a workspace the token does not belong to, or none", async () => {
    const other = await newWorkspace(deps.db);
    const otherBoard = await newBoard(deps.db, other);
    expectError(await create(hooks, body({ organization_slug: other.slug, collection_token: otherBoard.token })), 404, "workspace_not_found");
    expectError(await create(hooks, body({ organization_slug: "no-such-workspace" })), 404, "workspace_not_found");
  });

  it("404 board_not_found for an unknown board or another workspace's board", async () => {
    expectError(await create(hooks, body({ collection_token: "nosuchboard" })), 404, "board_not_found");
    const other = await newWorkspace(deps.db);
    expectError(await create(hooks, body({ collection_token: (await newBoard(deps.db, other)).token })), 404, "board_not_found");
  });

  it.each([
    "ftp://93.184.215.14/x",
    "not a url",
    "https://user:secret@93.184.215.14/x",
    "http://127.0.0.1:8080/hook",
    "http://localhost/hook",
    "http://[::1]/hook",
    "http://0177.0.0.1/hook",
    "http://10.0.0.5/hook",
    "http://172.16.3.4/hook",
    "http://192.168.1.1/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00::1]/hook",
    "http://100.64.0.1/hook",
  ])("422 invalid_hook_url for %s without EASEL_WEBHOOK_ALLOW_PRIVATE", async (hook_url) => {
    const ext = expectError(await create(hooks, body({ hook_url })), 422, "invalid_hook_url");
    expect(ext.field).toBe("hook_url");
  });

  it("accepts loopback and private receivers with EASEL_WEBHOOK_ALLOW_PRIVATE=1, still not other schemes", async () => {
    vi.stubEnv("EASEL_WEBHOOK_ALLOW_PRIVATE", "1");
    resetEnvCache();
    try {
      expect((await create(hooks, body({ hook_url: "http://127.0.0.1:8080/hook" }))).status).toBe(201);
      expect((await create(hooks, body({ hook_url: "http://10.0.0.5/hook" }))).status).toBe(201);
      expectError(await create(hooks, body({ hook_url: "file:///etc/passwd" })), 422, "invalid_hook_url");
    } finally {
      vi.stubEnv("EASEL_WEBHOOK_ALLOW_PRIVATE", "");
      resetEnvCache();
    }
  });

  it("replays the first answer for the same Idempotency-Key and creates nothing more", async () => {
    const b = body({ hook: "asset_deleted", hook_url: `${PUBLIC_URL}/idem` });
    const first = await create(hooks, b, { "idempotency-key": "trigger-idem-1" });
    const again = await create(hooks, b, { "idempotency-key": "trigger-idem-1" });
    expect(first.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const all = (await list(hooks)).body.data.filter((t: { hook_url: string }) => t.hook_url === `${PUBLIC_URL}/idem`);
    expect(all).toHaveLength(1);
  });
});

describe("GET /v1/trigger", () => {
  it("bare {data: [...]} of the workspace's triggers, without secrets, with status", async () => {
    const ws2 = await newWorkspace(deps.db);
    const b2 = await newBoard(deps.db, ws2);
    const t2 = await newApiToken(deps.db, ws2, { webhooks: true });
    const made = (await create(t2, { hook: "asset_added", hook_url: PUBLIC_URL, organization_slug: ws2.slug, collection_token: b2.token })).body;
    const res = await list(t2);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["data"]);
    expect(res.body.data).toEqual([
      {
        id: made.id,
        hook: "asset_added",
        hook_url: PUBLIC_URL,
        organization_slug: ws2.slug,
        collection_token: b2.token,
        expiration_date: made.expiration_date,
        created_at: expect.any(String),
        status: "active",
        disabled_at: null,
        disabled_reason: null,
      },
    ]);
    expect(res.text).not.toContain("whsec_");
    // Another workspace's token sees none of them; a filter for a board narrows the list.
    expect((await list(hooks)).body.data.map((t: { id: string }) => t.id)).not.toContain(made.id);
    expect((await list(t2, `?collection_token=${b2.token}`)).body.data).toHaveLength(1);
    expect((await list(t2, "?collection_token=other")).body.data).toHaveLength(0);
    expectError(await list(t2, `?organization_slug=${ws.slug}`), 404, "workspace_not_found");
  });

  it("needs the webhook permission and the read scope", async () => {
    expectError(await list(await newApiToken(deps.db, ws)), 403, "webhook_permission_required");
    expectError(await list(await newApiToken(deps.db, ws, { scopes: ["write"], webhooks: true })), 403, "insufficient_scope");
  });
});

describe("DELETE /v1/trigger/:id", () => {
  it("204 with no body, then 404 trigger_not_found; gone from the list", async () => {
    const { id } = (await create(hooks, body())).body;
    const res = await remove(hooks, id);
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expectError(await remove(hooks, id), 404, "trigger_not_found");
    expect((await list(hooks)).body.data.map((t: { id: string }) => t.id)).not.toContain(id);
  });

  it("another workspace's trigger reads as not found; unknown ids too", async () => {
    const { id } = (await create(hooks, body())).body;
    const other = await newWorkspace(deps.db);
    expectError(await remove(await newApiToken(deps.db, other, { webhooks: true }), id), 404, "trigger_not_found");
    expectError(await remove(hooks, "trg_nope"), 404, "trigger_not_found");
    expect((await list(hooks)).body.data.map((t: { id: string }) => t.id)).toContain(id);
  });

  it("needs the webhook permission; other methods answer 405 with Allow", async () => {
    const { id } = (await create(hooks, body())).body;
    expectError(await remove(await newApiToken(deps.db, ws), id), 403, "webhook_permission_required");
    const res = await call(triggerIdRoute.GET, { path: `/v1/trigger/${id}`, token: hooks, params: { id } });
    expectError(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("DELETE");
  });
});

describe("POST /v1/trigger/:id/renew", () => {
  it("an expired trigger reads expired, and renewing gives it 90 days from now", async () => {
    const made = (await create(hooks, body())).body;
    deps.time.advance(91 * DAY);
    try {
      const listed = (await list(hooks)).body.data.find((t: { id: string }) => t.id === made.id);
      expect(listed.status).toBe("expired");
      const res = await renew(hooks, made.id);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: made.id, status: "active", disabled_at: null });
      expect(res.body.secret).toBeUndefined();
      expect(Date.parse(res.body.expiration_date) - deps.clock().getTime()).toBeGreaterThan(90 * DAY - 60_000);
    } finally {
      deps.time.reset();
    }
  });

  it("404 for another workspace's trigger", async () => {
    const { id } = (await create(hooks, body())).body;
    const other = await newWorkspace(deps.db);
    expectError(await renew(await newApiToken(deps.db, other, { webhooks: true }), id), 404, "trigger_not_found");
  });
});

describe("deliveries and resend routes", () => {
  it("an empty log is a paginated list; unknown triggers and deliveries are 404", async () => {
    const { id } = (await create(hooks, body())).body;
    const res = await deliveries(hooks, id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], pagy: { current_page: 1, page_items: 0, total_pages: 1, total_count: 0 } });
    expectValidation(await deliveries(hooks, id, "?per_page=500"), "per_page");
    expectError(await deliveries(hooks, "trg_nope"), 404, "trigger_not_found");
    expectError(await resend(hooks, id, "12345"), 404, "delivery_not_found");
    expectError(await resend(hooks, id, "not-a-number"), 404, "delivery_not_found");
    expectError(await resend(hooks, "trg_nope", "1"), 404, "trigger_not_found");
  });
});
