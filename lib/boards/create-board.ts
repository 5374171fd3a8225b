import type { Deps } from "../deps";
import { boards, type Workspace } from "../db/schema";
import { notFound } from "../errors";
import { newToken } from "../tokens";
import { findBoard } from "./queries";
import { toBoardJson, type BoardJson } from "./present";

export async function createBoard(deps: Deps, input: { workspace: Workspace; title: string; parentToken?: string | null }): Promise<BoardJson> {
  let parentId: number | null = null;
  if (input.parentToken) {
    const parent = await findBoard(deps.db, input.workspace.id, input.parentToken);
    if (!parent) throw notFound("board_not_found", "Parent board");
    parentId = parent.board.id;
  }
  const now = deps.clock();
  const [board] = await deps.db
    .insert(boards)
    .values({ workspaceId: input.workspace.id, token: newToken(), title: input.title, parentId, state: "active", createdAt: now, updatedAt: now })
    .returning();
  return toBoardJson(board, input.parentToken ?? null);
}
