import { beforeAll, describe, expect, it } from "vitest";
import * as assetsRoute from "../../app/v1/[slug]/assets/route";
import * as boardAssetsRoute from "../../app/v1/[slug]/boards/[boardToken]/assets/route";
import type { Asset, Board, Workspace } from "../../lib/db/schema";
import type { Deps } from "../../lib/deps";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError } from "../helpers/envelopes";
import { insertAsset, newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";

// The listings' `md5` filter (how a client finds a file it already uploaded: easel-client's duplicate skipping).

let deps: Deps;
let ws: Workspace;
let rw: string;
let board: Board;
let child: Board;
let onBoard: Asset;
let onChild: Asset;
let loose: Asset;
let otherTenant: Asset;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  rw = await newApiToken(deps.db, ws);
  board = await newBoard(deps.db, ws, { title: "Shoot" });
  child = await newBoard(deps.db, ws, { title: "Day 2", parentId: board.id });
  onBoard = await insertAsset(deps.db, ws, { boardIds: [board.id] });
  onChild = await insertAsset(deps.db, ws, { boardIds: [child.id] });
  loose = await insertAsset(deps.db, ws, {});
  for (let i = 0; i < 5; i++) await insertAsset(deps.db, ws, { boardIds: [board.id] });
  const other = await newWorkspace(deps.db);
  otherTenant = await insertAsset(deps.db, other, {});
});

const listAll = (query: string, token = rw) => call(assetsRoute.GET, { path: `/v1/${ws.slug}/assets${query}`, token, params: { slug: ws.slug } });
const listBoard = (boardToken: string, query: string, token = rw) =>
  call(boardAssetsRoute.GET, { path: `/v1/${ws.slug}/boards/${boardToken}/assets${query}`, token, params: { slug: ws.slug, boardToken } });
const tokens = (res: { body: { data: { token: string }[] } }) => res.body.data.map((a) => a.token);

describe("md5 filter", () => {
  it("finds exactly the workspace's assets with that md5 (upper case reads the same), never another tenant's", async () => {
    const res = await listAll(`?md5=${loose.md5}`);
    expect(res.status).toBe(200);
    expect(tokens(res)).toEqual([loose.token]);
    expect(res.body.pagy.total_count).toBe(1);
    expect(tokens(await listAll(`?md5=${onChild.md5.toUpperCase()}`))).toEqual([onChild.token]);
    expect(tokens(await listAll(`?md5=${otherTenant.md5}`))).toEqual([]);
    expect(tokens(await listAll(`?md5=${"0".repeat(32)}`))).toEqual([]);
  });

  it("on a board: its own assets, and its sub-boards' with nested_assets", async () => {
    expect(tokens(await listBoard(board.token, `?md5=${onBoard.md5}`))).toEqual([onBoard.token]);
    expect(tokens(await listBoard(board.token, `?md5=${onChild.md5}`))).toEqual([]);
    expect(tokens(await listBoard(board.token, `?md5=${onChild.md5}&nested_assets=true`))).toEqual([onChild.token]);
    expect(tokens(await listBoard(board.token, `?md5=${loose.md5}&nested_assets=true`))).toEqual([]);
  });

  it("keeps a board access token inside its board", async () => {
    const scoped = await newBoardToken(deps.db, ws, child.token);
    expect(tokens(await listAll(`?md5=${onChild.md5}`, scoped))).toEqual([onChild.token]);
    expect(tokens(await listAll(`?md5=${onBoard.md5}`, scoped))).toEqual([]);
  });

  it("refuses anything but 32 hex digits on field md5", async () => {
    for (const bad of ["abc", "g".repeat(32), "0".repeat(33), `${"0".repeat(31)} `]) {
      expect(expectError(await listAll(`?md5=${encodeURIComponent(bad)}`), 422, "validation_failed").field).toBe("md5");
      expect(expectError(await listBoard(board.token, `?md5=${encodeURIComponent(bad)}`), 422, "validation_failed").field).toBe("md5");
    }
  });
});
