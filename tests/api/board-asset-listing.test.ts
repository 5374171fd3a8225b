import { beforeAll, describe, expect, it } from "vitest";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import * as boardAssetsRoute from "../../app/v1/[slug]/boards/[boardToken]/assets/route";
import { assetBoards, type Asset, type Board, type Workspace } from "../../lib/db/schema";
import type { Deps } from "../../lib/deps";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectError } from "../helpers/envelopes";
import { insertAsset, newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";

// GET /v1/:slug/boards/:token/assets without nested_assets or query: the board view's own two
// statements (lib/assets/list-board-assets.ts). Checked against what every other path answers.

let deps: Deps;
let ws: Workspace;
let rw: string;
let board: Board;
let other: Board;
let child: Board;
let sibling: Board;
const onBoard: Asset[] = []; // oldest first

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  rw = await newApiToken(deps.db, ws);
  board = await newBoard(deps.db, ws, { title: "Listing" });
  other = await newBoard(deps.db, ws, { title: "Other" });
  child = await newBoard(deps.db, ws, { title: "Child", parentId: board.id });
  sibling = await newBoard(deps.db, ws, { title: "Sibling" });
  const t0 = Date.parse("2026-01-01T00:00:00Z");
  for (let i = 0; i < 25; i++) {
    // Every third asset was on `other` first (an earlier membership), so its tokens' order is not the boards' id order.
    const at = new Date(t0 + i * 60_000);
    const asset = await insertAsset(deps.db, ws, { title: `Listed ${i}`, createdAt: at, boardIds: i % 3 === 0 ? [] : [board.id] });
    if (i % 3 === 0) {
      await deps.db.insert(assetBoards).values({ assetId: asset.id, boardId: other.id, createdAt: at });
      await deps.db.insert(assetBoards).values({ assetId: asset.id, boardId: board.id, createdAt: new Date(at.getTime() + 1000) });
    }
    onBoard.push(asset);
  }
  // Two assets of the same second: the newer id comes first.
  const tie = new Date(t0 + 30 * 60_000);
  onBoard.push(await insertAsset(deps.db, ws, { title: "Tie a", createdAt: tie, boardIds: [board.id] }));
  onBoard.push(await insertAsset(deps.db, ws, { title: "Tie b", createdAt: tie, boardIds: [board.id] }));
  // Not on the board: on its sub-board, on another board, in another workspace.
  await insertAsset(deps.db, ws, { title: "On the child", boardIds: [child.id] });
  await insertAsset(deps.db, ws, { title: "Elsewhere", boardIds: [sibling.id] });
  const otherWs = await newWorkspace(deps.db);
  await insertAsset(deps.db, otherWs, { title: "Another tenant", boardIds: [(await newBoard(deps.db, otherWs)).id] });
});

const list = (token: string, boardToken: string, query = "") =>
  call(boardAssetsRoute.GET, { path: `/v1/${ws.slug}/boards/${boardToken}/assets${query}`, token, params: { slug: ws.slug, boardToken } });
const getAsset = (assetToken: string) => call(assetRoute.GET, { path: `/v1/${ws.slug}/assets/${assetToken}`, token: rw, params: { slug: ws.slug, token: assetToken } });

describe("one board's asset listing", () => {
  it("pages through the board's assets newest first, with the board's count on every page", async () => {
    const newestFirst = [...onBoard].reverse().map((a) => a.token);
    const seen: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const res = await list(rw, board.token, `?per_page=10&page=${page}`);
      expect(res.status).toBe(200);
      expect(res.body.pagy).toEqual({ current_page: page, page_items: page < 3 ? 10 : 7, total_pages: 3, total_count: 27 });
      seen.push(...res.body.data.map((a: { token: string }) => a.token));
    }
    expect(seen).toEqual(newestFirst);
    expect(seen.slice(0, 2)).toEqual([onBoard[26].token, onBoard[25].token]);
  });

  it("answers an empty page past the end with the board's count", async () => {
    const res = await list(rw, board.token, "?per_page=10&page=4");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], pagy: { current_page: 4, page_items: 0, total_pages: 3, total_count: 27 } });
  });

  it("gives each asset the same JSON as the asset's own GET, its boards in membership order", async () => {
    const res = await list(rw, board.token, "?per_page=100");
    expect(res.body.data).toHaveLength(27);
    for (const listed of res.body.data) expect(listed).toEqual((await getAsset(listed.token)).body.data);
    const twoBoards = res.body.data.find((a: { token: string }) => a.token === onBoard[3].token);
    expect(twoBoards.boards).toEqual([other.token, board.token]);
  });

  it("answers as the search path does for the same assets", async () => {
    const plain = await list(rw, board.token, "?per_page=100");
    // A term every asset on the board matches takes the general path (lib/assets/list-assets.ts).
    const searched = await list(rw, board.token, "?per_page=100&query=i");
    expect(searched.body.data.filter((a: { title: string }) => a.title.startsWith("Listed"))).toEqual(
      plain.body.data.filter((a: { title: string }) => a.title.startsWith("Listed")),
    );
    const blank = await list(rw, board.token, "?per_page=100&query=%20%20");
    expect(blank.body).toEqual(plain.body);
  });

  it("an empty board is an empty first page", async () => {
    const empty = await newBoard(deps.db, ws);
    expect((await list(rw, empty.token)).body).toEqual({ data: [], pagy: { current_page: 1, page_items: 0, total_pages: 1, total_count: 0 } });
  });

  it("404 board_not_found for an unknown board or another workspace's board", async () => {
    expectError(await list(rw, "no-such-board"), 404, "board_not_found");
    const otherWs = await newWorkspace(deps.db);
    const foreign = await newBoard(deps.db, otherWs);
    await insertAsset(deps.db, otherWs, { boardIds: [foreign.id] });
    expectError(await list(rw, foreign.token), 404, "board_not_found");
  });

  it("a board access token lists its own board and those under it, and nothing beside it", async () => {
    const own = await newBoardToken(deps.db, ws, board.token);
    const res = await list(own, board.token, "?per_page=100");
    expect(res.status).toBe(200);
    expect(res.body.pagy.total_count).toBe(27);
    const underIt = await list(own, child.token);
    expect(underIt.body.data.map((a: { title: string }) => a.title)).toEqual(["On the child"]);
    expectError(await list(own, sibling.token), 404, "board_not_found");
    expectError(await list(await newBoardToken(deps.db, ws, child.token), board.token), 404, "board_not_found");
  });
});
