import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as retryRoute from "../../app/v1/[slug]/assets/[token]/retry_video_processing/route";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import * as listRoute from "../../app/v1/[slug]/assets/route";
import * as boardAssetsRoute from "../../app/v1/[slug]/boards/[boardToken]/assets/route";
import { ENCODE_ERROR_MESSAGES } from "../../lib/assets/encode-error";
import { assets, type Board, type EncodeStatus, type Workspace } from "../../lib/db/schema";
import { ENCODE_ERROR_CODES } from "../../lib/encode/errors";
import { AssetJson } from "../../lib/openapi/schemas/assets";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";
import { callTool, connect, ok } from "../mcp/helpers/client";

// Contract §10: `encode_error` is {code, message} when encode_status is failed, else null, in every
// place an asset is answered: GET asset, the asset list, board listings (board access tokens
// included), search, the write answers, and MCP tools.
let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let board: Board;
let token: string;
let mcp: Client;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db, { plan: "team" });
  board = await newBoard(deps.db, ws);
  token = await newApiToken(deps.db, ws, { scopes: ["read", "write"] });
  mcp = await connect(token);
});
afterAll(async () => {
  await mcp?.close();
});

async function video(title: string, encodeStatus: EncodeStatus, encodeError: string | null) {
  const a = await insertAsset(deps.db, ws, { title, mediaType: "video/mp4", boardIds: [board.id] });
  await deps.db.update(assets).set({ encodeStatus, encodeError }).where(eq(assets.id, a.id));
  return a;
}

const getAsset = (assetToken: string) => call(assetRoute.GET, { path: `/v1/${ws.slug}/assets/${assetToken}`, token, params: { slug: ws.slug, token: assetToken } });

describe("encode_error on the asset", () => {
  it("every stored code has a message", () => {
    expect(Object.keys(ENCODE_ERROR_MESSAGES).sort()).toEqual([...ENCODE_ERROR_CODES].sort());
    for (const message of Object.values(ENCODE_ERROR_MESSAGES)) expect(message).toMatch(/^[A-Z].+\.$/);
  });

  it("GET asset: the code and message of a failed encode, null otherwise (a legacy or unknown code reads encode_failed)", async () => {
    const cases: [EncodeStatus, string | null, unknown][] = [
      ["failed", "unreadable_source", { code: "unreadable_source", message: ENCODE_ERROR_MESSAGES.unreadable_source }],
      ["failed", "no_video_stream", { code: "no_video_stream", message: ENCODE_ERROR_MESSAGES.no_video_stream }],
      ["failed", null, { code: "encode_failed", message: ENCODE_ERROR_MESSAGES.encode_failed }],
      ["failed", "ffmpeg exploded", { code: "encode_failed", message: ENCODE_ERROR_MESSAGES.encode_failed }],
      ["none", null, null],
      ["queued", null, null],
      ["processing", null, null],
      // A code left behind on a status that is not failed is not shown.
      ["ready", "encode_failed", null],
    ];
    for (const [status, stored, expected] of cases) {
      const a = await video(`get ${status} ${stored}`, status, stored);
      const res = await getAsset(a.token);
      expect(res.status).toBe(200);
      expect(AssetJson.parse(res.body.data).encode_error).toEqual(expected);
      expect(res.body.data).toHaveProperty("encode_error", expected);
    }
  });

  it("the asset list, a board listing read with a board access token, and MCP get_asset carry it too", async () => {
    const failed = await video("listed failed", "failed", "source_missing");
    const fine = await video("listed fine", "none", null);
    const expected = { code: "source_missing", message: ENCODE_ERROR_MESSAGES.source_missing };

    const list = await call(listRoute.GET, { path: `/v1/${ws.slug}/assets?per_page=100`, token, params: { slug: ws.slug } });
    const listed = new Map<string, unknown>(list.body.data.map((a: { token: string; encode_error: unknown }) => [a.token, a.encode_error]));
    expect([listed.get(failed.token), listed.get(fine.token)]).toEqual([expected, null]);

    const boardToken = await newBoardToken(deps.db, ws, board.token);
    const onBoard = await call(boardAssetsRoute.GET, { path: `/v1/${ws.slug}/boards/${board.token}/assets?per_page=100`, token: boardToken, params: { slug: ws.slug, boardToken: board.token } });
    expect(onBoard.status).toBe(200);
    const boardListed = new Map<string, unknown>(onBoard.body.data.map((a: { token: string; encode_error: unknown }) => [a.token, a.encode_error]));
    expect([boardListed.get(failed.token), boardListed.get(fine.token)]).toEqual([expected, null]);

    const got = ok(await callTool(mcp, "get_asset", { organization: ws.slug, asset_token: failed.token }));
    expect(got.data.encode_error).toEqual(expected);
  });

  it("is cleared when a retry queues a new encode", async () => {
    const a = await video("retried", "failed", "encode_failed");
    expect((await getAsset(a.token)).body.data.encode_error).toEqual({ code: "encode_failed", message: ENCODE_ERROR_MESSAGES.encode_failed });
    const retried = await call(retryRoute.POST, { method: "POST", path: `/v1/${ws.slug}/assets/${a.token}/retry_video_processing`, token, params: { slug: ws.slug, token: a.token } });
    expect([retried.status, retried.body.data.encode_status, retried.body.data.encode_error]).toEqual([200, "queued", null]);
    expect((await getAsset(a.token)).body.data.encode_error).toBeNull();
  });
});
