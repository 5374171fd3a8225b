import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as mcp from "../../app/mcp/route";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import * as boardRoute from "../../app/v1/[slug]/boards/[boardToken]/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import * as triggerRoute from "../../app/v1/trigger/route";
import { assets, eventOutbox, type Board, type Workspace } from "../../lib/db/schema";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newApiToken, newBoard, newWorkspace } from "../helpers/factories";
import { changedTables, stateSnapshotter } from "./helpers";

/**
 * Found by tests/reliability/fuzz.test.ts: U+0000 in a body string, a query value or a path
 * segment reached Postgres (text cannot hold it) and answered 500. Each is now refused as input.
 *
 * Lone UTF-16 surrogates (contract §10, "Input"): a PATCH whose title was "\ud800" was accepted,
 * stored as U+FFFD, and its asset_updated event, whose jsonb cannot hold it, was lost. Every JSON
 * body refuses them now with 422 validation_failed naming the field, and nothing changes.
 */
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let board: Board;
let token: string;

beforeAll(async () => {
  // Whole-table comparisons need a database no other test file writes to at the same time.
  deps = await useTestDeps({ isolated: true });
  ws = await newWorkspace(deps.db);
  board = await newBoard(deps.db, ws);
  token = await newApiToken(deps.db, ws, { scopes: ["read", "write"], webhooks: true });
});

describe("U+0000 in input", () => {
  it("is a 4xx in the envelope, never a 500, and writes nothing", async () => {
    const { snapshot } = await stateSnapshotter(deps.db);
    const before = await snapshot();
    const answers = [
      await call(boardsRoute.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, token, json: { board: { title: "a\u0000b" } }, params: { slug: ws.slug } }),
      await call(boardRoute.PATCH, { method: "PATCH", path: `/v1/${ws.slug}/boards/${board.token}`, token, json: { board: { parent_token: "\u0000" } }, params: { slug: ws.slug, boardToken: board.token } }),
      await call(boardsRoute.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, token, json: { board: { title: "ok" }, "x\u0000": 1 }, params: { slug: ws.slug } }),
      await call(triggerRoute.GET, { path: `/v1/trigger?collection_token=%00`, token }),
      await call(boardsRoute.GET, { path: `/v1/${ws.slug}%00/boards`, token, params: { slug: `${ws.slug}\u0000` } }),
      await call(assetRoute.GET, { path: `/v1/${ws.slug}/assets/abc%00`, token, params: { slug: ws.slug, token: "abc\u0000" } }),
    ];
    expect(answers.map((a) => `${a.status} ${a.body?.errors?.[0]?.extensions?.code} ${a.body?.errors?.[0]?.extensions?.field ?? ""}`.trim())).toEqual([
      "422 validation_failed board.title",
      "422 validation_failed board.parent_token",
      "422 validation_failed x\u0000",
      "422 validation_failed collection_token",
      "404 workspace_not_found",
      "404 asset_not_found",
    ]);
    expect(changedTables(before, await snapshot())).toEqual([]);
  });
});

describe("lone UTF-16 surrogates in a JSON body", () => {
  const patch = (assetToken: string, body: string) =>
    call(assetRoute.PATCH, { method: "PATCH", path: `/v1/${ws.slug}/assets/${assetToken}`, token, body, headers: { "content-type": "application/json" }, params: { slug: ws.slug, token: assetToken } });
  const answer = (a: { status: number; body: any }) => `${a.status} ${a.body?.errors?.[0]?.extensions?.code} ${a.body?.errors?.[0]?.extensions?.field ?? ""}`.trim();

  it("a PATCH of the title with one answers 422 naming the field: title unchanged, no event, nothing written", async () => {
    const asset = await insertAsset(deps.db, ws, { title: "Spring poster", boardIds: [board.id] });
    deps.jobs.clear();
    const { snapshot } = await stateSnapshotter(deps.db);
    const before = await snapshot();
    // Raw JSON text, written as clients send it: \\ud800 is the escape JSON.parse turns into a lone surrogate.
    const answers = [
      await patch(asset.token, String.raw`{"asset":{"title":"a\ud800b"}}`),
      await patch(asset.token, String.raw`{"asset":{"title":"\udc00"}}`),
      await patch(asset.token, String.raw`{"asset":{"title":"pair reversed \udc00\ud800"}}`),
      await patch(asset.token, String.raw`{"asset":{"create_version":true,"title":"ok","comment":"\ud83d"}}`),
      await patch(asset.token, String.raw`{"asset":{"tags":["fine","\udfff"]}}`),
      await patch(asset.token, String.raw`{"asset":{"fields":{"k\ud800":"v"}}}`),
      await call(boardsRoute.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, token, body: String.raw`{"board":{"title":"\ud800"}}`, headers: { "content-type": "application/json" }, params: { slug: ws.slug } }),
    ];
    expect(answers.map(answer)).toEqual([
      "422 validation_failed asset.title",
      "422 validation_failed asset.title",
      "422 validation_failed asset.title",
      "422 validation_failed asset.comment",
      "422 validation_failed asset.tags.1",
      "422 validation_failed asset.fields.k\ud800",
      "422 validation_failed board.title",
    ]);
    expect(answers[0].body.errors[0].message).toMatch(/lone UTF-16 surrogate/);
    expect(changedTables(before, await snapshot())).toEqual([]);
    expect((await deps.db.select().from(assets).where(eq(assets.id, asset.id)))[0].title).toBe("Spring poster");
    expect(deps.jobs.sent).toEqual([]);
    expect(await deps.db.select().from(eventOutbox)).toEqual([]);
  });

  it("a well-formed pair (an emoji, escaped or not) is stored as sent, with its event", async () => {
    const asset = await insertAsset(deps.db, ws, { title: "before" });
    deps.jobs.clear();
    expect(answer(await patch(asset.token, String.raw`{"asset":{"title":"palette \ud83c\udfa8"}}`))).toBe("200 undefined");
    expect((await deps.db.select().from(assets).where(eq(assets.id, asset.id)))[0].title).toBe("palette \u{1F3A8}");
    expect(answer(await patch(asset.token, JSON.stringify({ asset: { title: "palette \u{1F3A8} again" } })))).toBe("200 undefined");
    expect(deps.jobs.sent.map((e) => (e.data as { changes: { title: { new: string } } }).changes.title.new)).toEqual(["palette \u{1F3A8}", "palette \u{1F3A8} again"]);
  });

  it("an MCP tool argument with one answers the tool's validation_failed naming the argument; nothing written", async () => {
    const asset = await insertAsset(deps.db, ws, { title: "mcp" });
    const { snapshot } = await stateSnapshotter(deps.db);
    const before = await snapshot();
    const body = String.raw`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"edit_asset_version_comment","arguments":{"organization":"${ws.slug}","asset_token":"${asset.token}","version_number":1,"comment":"note \udbff"}}}`;
    const res = await mcp.POST(new Request("http://easel.test/mcp", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body }));
    expect(res.status).toBe(200);
    const json = await res.json();
    expect(json).toMatchObject({ jsonrpc: "2.0", id: 7, result: { isError: true, structuredContent: { error: { code: "validation_failed", field: "comment" } } } });
    expect(json.result.content[0].text).toMatch(/^validation_failed: comment: must not contain a lone UTF-16 surrogate/);
    // Outside a tool's arguments: a JSON-RPC invalid-params error naming the path.
    const init = String.raw`{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"\ud800","version":"1"}}}`;
    const refused = await mcp.POST(new Request("http://easel.test/mcp", { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: init }));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ jsonrpc: "2.0", id: 8, error: { code: -32602, message: expect.stringContaining("params.clientInfo.name") } });
    expect(changedTables(before, await snapshot())).toEqual([]);
  });
});
