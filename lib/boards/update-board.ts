import { eq, sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { boards, type BoardState, type Workspace } from "../db/schema";
import { DomainError, notFound } from "../errors";
import { toBoardJson, type BoardJson } from "./present";
import { findBoard, subtreeIds } from "./queries";

export type BoardChanges = { title?: string; state?: BoardState; parentToken?: string | null };

/**
 * Renames, changes state or moves a board. A move under itself or one of its descendants would
 * make a cycle and is refused. The check and the move share one transaction holding a lock on the
 * workspace's tree, so two concurrent moves cannot together build a cycle on Postgres (on PGlite
 * transactions are serialised anyway).
 */
export async function updateBoard(deps: Deps, input: { workspace: Workspace; token: string; changes: BoardChanges }): Promise<BoardJson> {
  return deps.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${input.workspace.id})`);
    const current = await findBoard(tx, input.workspace.id, input.token);
    if (!current) throw notFound("board_not_found", "Board");
    const set: Partial<typeof boards.$inferInsert> = { updatedAt: deps.clock() };
    if (input.changes.title !== undefined) set.title = input.changes.title;
    if (input.changes.state !== undefined) set.state = input.changes.state;
    let parentToken = current.parentToken;
    if (input.changes.parentToken !== undefined) {
      if (input.changes.parentToken === null) {
        set.parentId = null;
      } else {
        const parent = await findBoard(tx, input.workspace.id, input.changes.parentToken);
        if (!parent) throw notFound("board_not_found", "Parent board");
        const own = await subtreeIds(tx, current.board.id);
        if (own.includes(parent.board.id)) {
          throw new DomainError("validation_failed", "A board cannot be moved under itself or one of its sub-boards", { field: "parent_token" });
        }
        set.parentId = parent.board.id;
      }
      parentToken = input.changes.parentToken;
    }
    const [board] = await tx.update(boards).set(set).where(eq(boards.id, current.board.id)).returning();
    return toBoardJson(board, parentToken);
  });
}
