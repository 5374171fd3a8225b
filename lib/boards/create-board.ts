import { boards, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { notFound } from "../errors";
import { newToken } from "../tokens";
import { toBoardJson, type BoardJson } from "./present";
import { findBoard } from "./queries";
import { lockTree, placeUnder } from "./tree";

/**
 * Creates a board at top level or under `parentToken` (422 on parent_token past the depth limit).
 * A child's parent is read under the tree lock, so a concurrent move of the parent cannot leave the
 * new board with a stale path. A top-level board depends on no other board's path: one INSERT, no
 * lock (so creating one never waits behind a move, nor behind a lock a lost session still holds).
 */
export async function createBoard(deps: Deps, input: { workspace: Workspace; title: string; parentToken?: string | null }): Promise<BoardJson> {
  const values = (place: ReturnType<typeof placeUnder>) => {
    const now = deps.clock();
    return { workspaceId: input.workspace.id, token: newToken(), title: input.title, ...place, state: "active" as const, createdAt: now, updatedAt: now };
  };
  if (!input.parentToken) {
    const [board] = await deps.db.insert(boards).values(values(placeUnder(null))).returning();
    return toBoardJson(board, null);
  }
  const parentToken = input.parentToken;
  return deps.db.transaction(async (tx) => {
    await lockTree(tx, input.workspace.id);
    const parent = await findBoard(tx, input.workspace.id, parentToken);
    if (!parent) throw notFound("board_not_found", "Parent board");
    const [board] = await tx.insert(boards).values(values(placeUnder(parent.board))).returning();
    return toBoardJson(board, parentToken);
  });
}
