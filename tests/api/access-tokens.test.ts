import { beforeAll, describe, expect, it } from "vitest";
import * as accessTokensRoute from "../../app/v1/[slug]/access_tokens/route";
import * as assetsRoute from "../../app/v1/[slug]/assets/route";
import * as boardRoute from "../../app/v1/[slug]/boards/[boardToken]/route";
import { revokeApiToken } from "../../lib/auth/api-tokens";
import type { Board, Workspace } from "../../lib/db/schema";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError, expectValidation } from "../helpers/envelopes";
import { newApiToken, newBoard, newWorkspace } from "../helpers/factories";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
let board: Board;
let rw: string;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  board = await newBoard(deps.db, ws);
  rw = await newApiToken(deps.db, ws);
});

const mint = (token: string | null, json: unknown, slug = ws.slug) =>
  call(accessTokensRoute.POST, { method: "POST", path: `/v1/${slug}/access_tokens`, token, json, params: { slug } });
const getBoard = (token: string, boardToken = board.token) =>
  call(boardRoute.GET, { path: `/v1/${ws.slug}/boards/${boardToken}`, token, params: { slug: ws.slug, boardToken } });

describe("POST /v1/:slug/access_tokens", () => {
  it("mints a board access token that reads its board", async () => {
    const res = await mint(rw, { board_token: board.token, expires_in: 600 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ token_type: "Bearer", board_token: board.token, expires_in: 600 });
    expect(Date.parse(res.body.data.expires_at) - Date.now()).toBeGreaterThan(590_000);
    expect((await getBoard(res.body.data.access_token)).status).toBe(200);
  });

  it("ladder: 401, 403 scope, 403 board token, 404 other workspace, 404 unknown board", async () => {
    expectError(await mint(null, { board_token: board.token, expires_in: 600 }), 401, "unauthenticated");
    const writeOnly = await newApiToken(deps.db, ws, { scopes: ["write"] });
    expectError(await mint(writeOnly, { board_token: board.token, expires_in: 600 }), 403, "insufficient_scope");
    const bt = (await mint(rw, { board_token: board.token, expires_in: 600 })).body.data.access_token;
    expectError(await mint(bt, { board_token: board.token, expires_in: 600 }), 403, "board_scoped_token");
    const other = await newWorkspace(deps.db);
    expectError(await mint(await newApiToken(deps.db, other), { board_token: board.token, expires_in: 600 }), 404, "workspace_not_found");
    expectError(await mint(rw, { board_token: "nosuchboard", expires_in: 600 }), 404, "board_not_found");
  });

  it("422 validation_failed on expires_in that is not a whole number in 60..3600", async () => {
    for (const expires_in of [59, 3601, 1.5, "600", null, -60]) {
      expectValidation(await mint(rw, { board_token: board.token, expires_in }), "expires_in");
    }
    expectValidation(await mint(rw, { board_token: board.token }), "expires_in");
    for (const expires_in of [60, 3600]) expect((await mint(rw, { board_token: board.token, expires_in })).status).toBe(200);
  });

  it("keeps working after its API token is revoked, until it expires", async () => {
    const api = await newApiToken(deps.db, ws);
    const bt = (await mint(api, { board_token: board.token, expires_in: 60 })).body.data.access_token;
    await revokeApiToken(deps.db, api, new Date());
    expect((await getBoard(bt)).status).toBe(200);
    deps.time.advance(61_000);
    try {
      expectError(await getBoard(bt), 401, "unauthenticated");
    } finally {
      deps.time.reset();
    }
  });

  it("is refused on routes outside the seven reads", async () => {
    const bt = (await mint(rw, { board_token: board.token, expires_in: 600 })).body.data.access_token;
    expectError(await call(boardRoute.PATCH, { method: "PATCH", path: `/v1/${ws.slug}/boards/${board.token}`, token: bt, json: { board: { title: "x" } }, params: { slug: ws.slug, boardToken: board.token } }), 403, "board_scoped_token");
    expect((await call(assetsRoute.GET, { path: `/v1/${ws.slug}/assets`, token: bt, params: { slug: ws.slug } })).status).toBe(200);
  });

  it("counts each creation as one request of the API token", async () => {
    const api = await newApiToken(deps.db, ws);
    const a = await mint(api, { board_token: board.token, expires_in: 600 });
    const b = await mint(api, { board_token: board.token, expires_in: 600 });
    expect(Number(a.headers.get("ratelimit-remaining")) - Number(b.headers.get("ratelimit-remaining"))).toBe(1);
  });
});
