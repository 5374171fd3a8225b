import { beforeAll, describe, expect, it } from "vitest";
import * as boardRoute from "../../app/v1/[slug]/boards/[boardToken]/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import * as triggerRoute from "../../app/v1/trigger/route";
import type { Board, Workspace } from "../../lib/db/schema";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newBoard, newWorkspace } from "../helpers/factories";
import { changedTables, stateSnapshotter } from "./helpers";

/**
 * Found by tests/reliability/fuzz.test.ts: U+0000 in a body string, a query value or a path
 * segment reached Postgres (text cannot hold it) and answered 500. Each is now refused as input.
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
