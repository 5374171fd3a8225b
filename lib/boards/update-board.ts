import { eq } from "drizzle-orm";
import { boards, type BoardState, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { notFound } from "../errors";
import { toBoardJson, type BoardJson } from "./present";
import { findBoard } from "./queries";
import { lockTree, moveSubtree } from "./tree";

export type BoardChanges = { title?: string; state?: BoardState; parentToken?: string | null };

/**
 * Renames, changes state or moves a board. Moves go through the tree's owner (lib/boards/tree.ts),
 * which refuses cycles and nesting past the limit and rewrites the moved subtree's paths. The
 * checks and the move share one transaction holding the workspace's tree lock, so two concurrent
 * moves cannot together build a cycle on PostgreSQL (on PGlite transactions run one at a time).
 * State changes (archive, trash) leave the board where it is.
 */
export async function updateBoard(deps: Deps, input: { workspace: Workspace; token: string; changes: BoardChanges }): Promise<BoardJson> {
  return deps.db.transaction(async (tx) => {
    await lockTree(tx, input.workspace.id);
    const current = await findBoard(tx, input.workspace.id, input.token);
    if (!current) throw notFound("board_not_found", "Board");
    let parentToken = current.parentToken;
    if (input.changes.parentToken !== undefined) {
      let parent = null;
      if (input.changes.parentToken !== null) {
        parent = await findBoard(tx, input.workspace.id, input.changes.parentToken);
        if (!parent) throw notFound("board_not_found", "Parent board");
      }
      await moveSubtree(tx, current.board, parent?.board ?? null);
      parentToken = input.changes.parentToken;
    }
    const set: Partial<typeof boards.$inferInsert> = { updatedAt: deps.clock() };
    if (input.changes.title !== undefined) set.title = input.changes.title;
    if (input.changes.state !== undefined) set.state = input.changes.state;
    const [board] = await tx.update(boards).set(set).where(eq(boards.id, current.board.id)).returning();
    return toBoardJson(board, parentToken);
  });
}
