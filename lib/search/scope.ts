import type { Principal } from "../auth/principal";
import { getBoardOrThrow, subtreeScope, visibleScope, type BoardScope } from "../boards";
import type { Workspace } from "../db/schema";
import type { Deps } from "../deps";

/**
 * The boards a search may look in: what the principal can see, narrowed to `boardToken`'s subtree
 * when given (a board outside what the principal sees is 404, as everywhere). null = whole workspace.
 */
export async function searchScope(deps: Deps, input: { workspace: Workspace; principal: Principal; boardToken?: string }): Promise<BoardScope | null> {
  if (!input.boardToken) return visibleScope(input.workspace, input.principal);
  const { board } = await getBoardOrThrow(deps.db, { workspace: input.workspace, principal: input.principal, token: input.boardToken });
  return subtreeScope(board);
}
