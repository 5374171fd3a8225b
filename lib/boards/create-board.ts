import type { Deps } from "../deps";
import { boards, type Workspace } from "../db/schema";
import { notFound } from "../errors";
import { newToken } from "../tokens";
import { findBoard } from "./queries";
import { toBoardJson, type BoardJson } from "./present";
import { lockTree, placeUnder } from "./tree";

/**
 * Creates a board at top level or under `parentToken` (422 on parent_token past the depth limit).
 * The parent is read under the tree lock, so a concurrent move of the parent cannot leave the new
 * board with a stale path.
 */
export async function createBoard(deps: Deps, input: { workspace: Workspace; title: string; parentToken?: string | null }): Promise<BoardJson> {
  return deps.db.transaction(async (tx) => {
    await lockTree(tx, input.workspace.id);
    let parent = null;
    if (input.parentToken) {
      parent = await findBoard(tx, input.workspace.id, input.parentToken);
      if (!parent) throw notFound("board_not_found", "Parent board");
    }
    const place = placeUnder(parent?.board ?? null);
    const now = deps.clock();
    const [board] = await tx
      .insert(boards)
      .values({ workspaceId: input.workspace.id, token: newToken(), title: input.title, ...place, state: "active", createdAt: now, updatedAt: now })
      .returning();
    return toBoardJson(board, input.parentToken ?? null);
  });
}
