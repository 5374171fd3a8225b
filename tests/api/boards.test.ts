import { beforeAll, describe, expect, it } from "vitest";
import * as boardAssetsRoute from "../../app/v1/[slug]/boards/[boardToken]/assets/route";
import * as childrenRoute from "../../app/v1/[slug]/boards/[boardToken]/children/route";
import * as boardRoute from "../../app/v1/[slug]/boards/[boardToken]/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import type { Workspace } from "../../lib/db/schema";
import type { Deps } from "../../lib/deps";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError, expectRateHeaders, expectValidation } from "../helpers/envelopes";
import { newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";

let deps: Deps;
let ws: Workspace;
let rw: string;
let readOnly: string;
let writeOnly: string;
let otherWs: Workspace;
let otherToken: string;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  rw = await newApiToken(deps.db, ws);
  readOnly = await newApiToken(deps.db, ws, { scopes: ["read"] });
  writeOnly = await newApiToken(deps.db, ws, { scopes: ["write"] });
  otherWs = await newWorkspace(deps.db);
  otherToken = await newApiToken(deps.db, otherWs);
});

const listBoards = (token: string | null, query = "") =>
  call(boardsRoute.GET, { path: `/v1/${ws.slug}/boards${query}`, token, params: { slug: ws.slug } });
const createBoard = (token: string | null, json: unknown, slug = ws.slug) =>
  call(boardsRoute.POST, { method: "POST", path: `/v1/${slug}/boards`, token, json, params: { slug } });
const getBoard = (token: string | null, boardToken: string) =>
  call(boardRoute.GET, { path: `/v1/${ws.slug}/boards/${boardToken}`, token, params: { slug: ws.slug, boardToken } });
const patchBoard = (token: string | null, boardToken: string, json: unknown) =>
  call(boardRoute.PATCH, { method: "PATCH", path: `/v1/${ws.slug}/boards/${boardToken}`, token, json, params: { slug: ws.slug, boardToken } });
const children = (token: string | null, boardToken: string, query = "") =>
  call(childrenRoute.GET, { path: `/v1/${ws.slug}/boards/${boardToken}/children${query}`, token, params: { slug: ws.slug, boardToken } });

describe("auth ladder on GET /boards and POST /boards", () => {
  it("401 without a token, with a malformed header, with an unknown or revoked token", async () => {
    expectError(await listBoards(null), 401, "unauthenticated");
    expectError(await call(boardsRoute.GET, { path: `/v1/${ws.slug}/boards`, headers: { authorization: "Basic abc" }, params: { slug: ws.slug } }), 401, "unauthenticated");
    expectError(await listBoards("easel_doesnotexist"), 401, "unauthenticated");
    expectError(await listBoards("not-a-token"), 401, "unauthenticated");
    const { revokeApiToken } = await import("../../lib/auth/api-tokens");
    const doomed = await newApiToken(deps.db, ws);
    expect((await listBoards(doomed)).status).toBe(200);
    expect(await revokeApiToken(deps.db, doomed, new Date())).toBe(true);
    expectError(await listBoards(doomed), 401, "unauthenticated");
  });

  it("403 insufficient_scope names the missing scope", async () => {
    expect(expectError(await createBoard(readOnly, { board: { title: "x" } }), 403, "insufficient_scope").required_scope).toBe("write");
    expect(expectError(await listBoards(writeOnly), 403, "insufficient_scope").required_scope).toBe("read");
  });

  it("403 board_scoped_token for a write with a board access token", async () => {
    const b = await newBoard(deps.db, ws);
    const bt = await newBoardToken(deps.db, ws, b.token);
    expectError(await createBoard(bt, { board: { title: "x" } }), 403, "board_scoped_token");
    expectError(await patchBoard(bt, b.token, { board: { title: "x" } }), 403, "board_scoped_token");
  });

  it("404 workspace_not_found for a token of another workspace, and nothing changes", async () => {
    const b = await newBoard(deps.db, ws, { title: "Mine" });
    expectError(await listBoards(otherToken), 404, "workspace_not_found");
    expectError(await getBoard(otherToken, b.token), 404, "workspace_not_found");
    const res = await patchBoard(otherToken, b.token, { board: { title: "hijacked" } });
    expectError(res, 404, "workspace_not_found");
    expect((await getBoard(rw, b.token)).body.data.title).toBe("Mine");
  });

  it("422 validation_failed naming each bad field", async () => {
    expectValidation(await createBoard(rw, { board: {} }), "title");
    expectValidation(await createBoard(rw, { board: { title: 12345 } }), "title");
    expectValidation(await createBoard(rw, { board: { title: "   " } }), "title");
    expectValidation(await createBoard(rw, {}), "board");
    for (const q of ["per_page=0", "per_page=101", "per_page=abc", "per_page=-1", "per_page=2.5", "page=0", "page=1.5"]) {
      expectValidation(await listBoards(rw, `?${q}`), q.split("=")[0]);
    }
  });

  it("400 invalid_json for bodies that are not a JSON object", async () => {
    for (const body of ['{"board": {"title": "x"', "[1]", '"board"', "null", "board[title]=x"]) {
      expectError(await call(boardsRoute.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, token: rw, body, params: { slug: ws.slug } }), 400, "invalid_json");
    }
  });

  it("every response carries RateLimit headers, including 401", async () => {
    expectRateHeaders(await listBoards(rw));
    expectRateHeaders(await listBoards(null));
    expectRateHeaders(await listBoards(rw, "?per_page=0"));
  });
});

describe("boards", () => {
  it("creates a top-level board (201) and a child; lists only top-level boards", async () => {
    const res = await createBoard(rw, { board: { title: "Parent" } });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ title: "Parent", parent_token: null, state: "active" });
    const child = await createBoard(rw, { board: { title: "Child", parent_token: res.body.data.token } });
    expect(child.body.data.parent_token).toBe(res.body.data.token);
    const all = await listBoards(rw, "?per_page=100");
    const tokens = all.body.data.map((b: { token: string }) => b.token);
    expect(tokens).toContain(res.body.data.token);
    expect(tokens).not.toContain(child.body.data.token);
    expect(all.body.pagy).toMatchObject({ current_page: 1, total_count: all.body.data.length });
  });

  it("404 board_not_found for an unknown board and an unknown parent", async () => {
    expectError(await getBoard(rw, "nosuchboard"), 404, "board_not_found");
    expectError(await createBoard(rw, { board: { title: "x", parent_token: "nosuchboard" } }), 404, "board_not_found");
  });

  it("patches title and state, refuses unknown states", async () => {
    const b = await newBoard(deps.db, ws);
    expect((await patchBoard(rw, b.token, { board: { title: "Renamed" } })).body.data.title).toBe("Renamed");
    for (const state of ["archived", "read_only", "active", "trashed"]) {
      expect((await patchBoard(rw, b.token, { board: { state } })).body.data.state).toBe(state);
    }
    expectValidation(await patchBoard(rw, b.token, { board: { state: "deleted" } }), "state");
  });

  it("refuses moves that make a cycle and keeps the tree", async () => {
    const p = await newBoard(deps.db, ws);
    const c = await newBoard(deps.db, ws, { parentId: p.id });
    const g = await newBoard(deps.db, ws, { parentId: c.id });
    for (const target of [p.token, c.token, g.token]) {
      expectValidation(await patchBoard(rw, p.token, { board: { parent_token: target } }), "parent_token");
    }
    expect((await getBoard(rw, p.token)).body.data.parent_token).toBeNull();
    const moved = await patchBoard(rw, g.token, { board: { parent_token: null } });
    expect(moved.body.data.parent_token).toBeNull();
  });

  it("lists direct children with pagination", async () => {
    const p = await newBoard(deps.db, ws);
    const kids = [await newBoard(deps.db, ws, { parentId: p.id }), await newBoard(deps.db, ws, { parentId: p.id }), await newBoard(deps.db, ws, { parentId: p.id })];
    await newBoard(deps.db, ws, { parentId: kids[0].id });
    const p1 = await children(rw, p.token, "?per_page=2&page=1");
    const p2 = await children(rw, p.token, "?per_page=2&page=2");
    expect(p1.body.pagy).toEqual({ current_page: 1, page_items: 2, total_pages: 2, total_count: 3 });
    expect(p2.body.pagy).toMatchObject({ current_page: 2, page_items: 1 });
    const got = [...p1.body.data, ...p2.body.data].map((b: { token: string }) => b.token).sort();
    expect(got).toEqual(kids.map((k) => k.token).sort());
  });

  it("board assets is an empty page for a board without assets", async () => {
    const b = await newBoard(deps.db, ws);
    const res = await call(boardAssetsRoute.GET, { path: `/v1/${ws.slug}/boards/${b.token}/assets?nested_assets=true`, token: rw, params: { slug: ws.slug, boardToken: b.token } });
    expect(res.body).toEqual({ data: [], pagy: { current_page: 1, page_items: 0, total_pages: 1, total_count: 0 } });
  });
});

describe("board access token reads", () => {
  it("sees its board and sub-boards only; outside reads as not found", async () => {
    const root = await newBoard(deps.db, ws);
    const sub = await newBoard(deps.db, ws, { parentId: root.id });
    const outside = await newBoard(deps.db, ws);
    const bt = await newBoardToken(deps.db, ws, root.token);
    expect((await getBoard(bt, sub.token)).status).toBe(200);
    expectError(await getBoard(bt, outside.token), 404, "board_not_found");
    expectError(await children(bt, outside.token), 404, "board_not_found");
    const list = await listBoards(bt);
    expect(list.body.data.map((b: { token: string }) => b.token)).toEqual([root.token]);
  });

  it("expired → 401; another workspace's board token → 404", async () => {
    const root = await newBoard(deps.db, ws);
    const expired = await newBoardToken(deps.db, ws, root.token, { now: new Date(Date.now() - 7200_000), expiresIn: 60 });
    expectError(await getBoard(expired, root.token), 401, "unauthenticated");
    const foreignBoard = await newBoard(deps.db, otherWs);
    const foreign = await newBoardToken(deps.db, otherWs, foreignBoard.token);
    expectError(await listBoards(foreign), 404, "workspace_not_found");
  });
});
