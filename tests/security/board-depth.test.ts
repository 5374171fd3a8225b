import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as boardAssetsRoute from "../../app/v1/[slug]/boards/[boardToken]/assets/route";
import * as boardRoute from "../../app/v1/[slug]/boards/[boardToken]/route";
import * as boardsRoute from "../../app/v1/[slug]/boards/route";
import { MAX_BOARD_DEPTH } from "../../lib/boards/tree";
import { boards, type Board, type Workspace } from "../../lib/db/schema";
import type { Deps } from "../../lib/deps";
import { newToken } from "../../lib/tokens";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { expectValidation } from "../helpers/envelopes";
import { insertAsset, newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";
import { pathsOutOfStep } from "./board-tree-check";

let deps: Deps;
let ws: Workspace;
let rw: string;

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  rw = await newApiToken(deps.db, ws);
});

const createBoard = (title: string, parentToken?: string | null) =>
  call(boardsRoute.POST, { method: "POST", path: `/v1/${ws.slug}/boards`, token: rw, json: { board: { title, parent_token: parentToken } }, params: { slug: ws.slug } });
const patchBoard = (boardToken: string, board: Record<string, unknown>, token = rw) =>
  call(boardRoute.PATCH, { method: "PATCH", path: `/v1/${ws.slug}/boards/${boardToken}`, token, json: { board }, params: { slug: ws.slug, boardToken } });
const getBoard = (boardToken: string, token: string) =>
  call(boardRoute.GET, { path: `/v1/${ws.slug}/boards/${boardToken}`, token, params: { slug: ws.slug, boardToken } });
const nestedAssets = (boardToken: string, token: string) =>
  call(boardAssetsRoute.GET, { path: `/v1/${ws.slug}/boards/${boardToken}/assets?nested_assets=true&per_page=100`, token, params: { slug: ws.slug, boardToken } });

/** `n` boards each nested in the one before, the first under `parent` (or at top level). */
async function chain(n: number, parent?: Board): Promise<Board[]> {
  const made: Board[] = [];
  for (let i = 0; i < n; i++) made.push(await newBoard(deps.db, ws, { parentId: (made.at(-1) ?? parent)?.id }));
  return made;
}

const boardCount = async () => (await deps.db.select({ n: sql<number>`count(*)::int` }).from(boards).where(eq(boards.workspaceId, ws.id)))[0].n;
const snapshot = async () =>
  (await deps.db.select({ id: boards.id, parentId: boards.parentId, ancestry: boards.ancestry, depth: boards.depth }).from(boards).where(eq(boards.workspaceId, ws.id))).sort((a, b) => a.id - b.id);

describe("the depth limit (contract §12: boards nest at most 50 levels)", () => {
  it("creates the 50th level through the API and refuses the 51st with 422 on parent_token, creating nothing", async () => {
    let parent: string | null = null;
    for (let level = 1; level <= MAX_BOARD_DEPTH; level++) {
      const res = await createBoard(`Level ${level}`, parent);
      expect(res.status, res.text).toBe(201);
      parent = res.body.data.token;
    }
    const [deepest] = await deps.db.select().from(boards).where(eq(boards.token, parent!));
    expect(deepest.depth).toBe(MAX_BOARD_DEPTH - 1);
    const before = await boardCount();
    expectValidation(await createBoard("Level 51", parent), "parent_token");
    expect(await boardCount()).toBe(before);
    // Moving an existing board under the deepest one is refused the same way.
    const loose = await newBoard(deps.db, ws);
    expectValidation(await patchBoard(loose.token, { parent_token: parent }), "parent_token");
    expect((await deps.db.select().from(boards).where(eq(boards.id, loose.id)))[0]).toMatchObject({ parentId: null, ancestry: "/", depth: 0 });
  });

  it("refuses a move that would push any descendant past the limit, changes nothing, and allows exactly the limit", async () => {
    const moving = await chain(10); // depths 0..9
    const target = await chain(41); // depths 0..40
    const before = await snapshot();
    // Under the depth-40 board the moved chain would reach depth 41 + 9 = 50.
    expectValidation(await patchBoard(moving[0].token, { parent_token: target[40].token, title: "not applied" }), "parent_token");
    expect(await snapshot()).toEqual(before);
    expect((await getBoard(moving[0].token, rw)).body.data).toMatchObject({ parent_token: null, title: moving[0].title });
    // Under the depth-39 board its deepest board lands on depth 49: allowed.
    const ok = await patchBoard(moving[0].token, { parent_token: target[39].token });
    expect(ok.status, ok.text).toBe(200);
    const [bottom] = await deps.db.select().from(boards).where(eq(boards.id, moving[9].id));
    expect(bottom.depth).toBe(MAX_BOARD_DEPTH - 1);
    expect(await pathsOutOfStep(deps.db, ws.id)).toEqual([]);
  });
});

describe("moves keep the materialised paths true", () => {
  it("rewrites the moved board and every descendant, as a recursive walk of the parent links finds them", async () => {
    const a = await newBoard(deps.db, ws, { title: "A" });
    const b = await newBoard(deps.db, ws, { title: "B" });
    const [b1] = await chain(3, b);
    // A branching subtree under A: two children, grandchildren under both, a deeper chain under one.
    const kids = [await newBoard(deps.db, ws, { parentId: a.id }), await newBoard(deps.db, ws, { parentId: a.id })];
    const grand = [await newBoard(deps.db, ws, { parentId: kids[0].id }), await newBoard(deps.db, ws, { parentId: kids[1].id }), await newBoard(deps.db, ws, { parentId: kids[1].id })];
    const deep = await chain(5, grand[2]);
    const asset = await insertAsset(deps.db, ws, { boardIds: [deep[4].id] });

    for (const [moved, under] of [
      [a, b1],
      [kids[1], b],
      [kids[1], null],
      [deep[0], a],
      [grand[2], kids[0]],
    ] as [Board, Board | null][]) {
      const res = await patchBoard(moved.token, { parent_token: under?.token ?? null });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.parent_token).toBe(under?.token ?? null);
      expect(await pathsOutOfStep(deps.db, ws.id)).toEqual([]);
    }
    // A board token follows the tree as it is now: the asset is found from the board it moved under.
    const holder = (await deps.db.select().from(boards).where(eq(boards.id, deep[4].id)))[0];
    const top = holder.ancestry.split("/").filter(Boolean)[0];
    const [root] = await deps.db.select().from(boards).where(eq(boards.id, Number(top)));
    const rootToken = await newBoardToken(deps.db, ws, root.token);
    expect((await nestedAssets(root.token, rootToken)).body.data.map((x: { token: string }) => x.token)).toEqual([asset.token]);
    expect((await getBoard(deep[4].token, rootToken)).status).toBe(200);
  });

  it("refuses a move under the board itself or any of its descendants, and keeps the tree", async () => {
    const [top, ...below] = await chain(6);
    const before = await snapshot();
    for (const target of [top, below[0], below[4]]) expectValidation(await patchBoard(top.token, { parent_token: target.token }), "parent_token");
    expectValidation(await patchBoard(below[1].token, { parent_token: below[3].token }), "parent_token");
    expect(await snapshot()).toEqual(before);
  });

  it("archiving and trashing keep the board where it is, and its board token still sees the subtree", async () => {
    const [top, mid, leaf] = await chain(3);
    const before = await snapshot();
    for (const state of ["archived", "trashed", "read_only", "active"]) expect((await patchBoard(mid.token, { state })).status).toBe(200);
    expect(await snapshot()).toEqual(before);
    const bt = await newBoardToken(deps.db, ws, top.token);
    expect((await getBoard(leaf.token, bt)).status).toBe(200);
  });

  it("a board moved out of a token's subtree reads as not found with that token", async () => {
    const [top, mid, leaf] = await chain(3);
    const bt = await newBoardToken(deps.db, ws, top.token);
    expect((await getBoard(leaf.token, bt)).status).toBe(200);
    expect((await patchBoard(mid.token, { parent_token: null })).status).toBe(200);
    expect((await getBoard(leaf.token, bt)).status).toBe(404);
    expect((await getBoard(mid.token, bt)).status).toBe(404);
  });

  it("two moves racing in opposite directions cannot build a cycle, and creates under a moving board get its new path", async () => {
    for (let round = 0; round < 5; round++) {
      const x = await newBoard(deps.db, ws);
      const y = await newBoard(deps.db, ws);
      const [xUnderY, yUnderX, child] = await Promise.all([
        patchBoard(x.token, { parent_token: y.token }),
        patchBoard(y.token, { parent_token: x.token }),
        createBoard("Child of x", x.token),
      ]);
      // Exactly one move wins: the other sees the first and would make a cycle.
      expect([xUnderY.status, yUnderX.status].sort()).toEqual([200, 422]);
      expect(child.status).toBe(201);
      expect(await pathsOutOfStep(deps.db, ws.id)).toEqual([]);
    }
  });
});

describe("boards from before the limit", () => {
  it("a workspace may hold a chain deeper than the limit: nothing more nests under it, and a piece that fits can move out", async () => {
    // Inserted directly, as the migration's backfill leaves a chain that was built before the limit.
    let parent: Board | null = null;
    const legacy: Board[] = [];
    for (let depth = 0; depth < 60; depth++) {
      const now = new Date();
      const values: typeof boards.$inferInsert = {
        workspaceId: ws.id,
        token: newToken(),
        title: `Legacy ${depth}`,
        parentId: parent?.id ?? null,
        ancestry: parent ? `${parent.ancestry}${parent.id}/` : "/",
        depth,
        state: "active",
        createdAt: now,
        updatedAt: now,
      };
      [parent] = await deps.db.insert(boards).values(values).returning();
      legacy.push(parent);
    }
    expect(await pathsOutOfStep(deps.db, ws.id)).toEqual([]);
    const bottom = legacy[59];
    expectValidation(await createBoard("Below the legacy bottom", bottom.token), "parent_token");
    // Moving the whole chain to top level would still leave 60 levels: refused.
    expectValidation(await patchBoard(legacy[1].token, { parent_token: null }), "parent_token");
    // Its last 50 boards fit at top level.
    expect((await patchBoard(legacy[10].token, { parent_token: null })).status).toBe(200);
    expect(await pathsOutOfStep(deps.db, ws.id)).toEqual([]);
    expect((await deps.db.select().from(boards).where(eq(boards.id, bottom.id)))[0].depth).toBe(MAX_BOARD_DEPTH - 1);
    // A board token on the legacy top still sees what stayed under it, and no longer what moved out.
    const bt = await newBoardToken(deps.db, ws, legacy[0].token);
    expect((await getBoard(legacy[9].token, bt)).status).toBe(200);
    expect((await getBoard(bottom.token, bt)).status).toBe(404);
  });
});
