import type { Principal } from "../auth/principal";
import { getBoardOrThrow, subtreeIds, visibleBoardIds } from "../boards";
import type { Deps } from "../deps";
import type { Workspace } from "../db/schema";

/**
 * The boards a search may look in: what the principal can see, narrowed to `boardToken`'s subtree
 * when given (a board outside what the principal sees is 404, as everywhere). null = whole workspace.
 */
export async function searchBoardIds(deps: Deps, input: { workspace: Workspace; principal: Principal; boardToken?: string }): Promise<number[] | null> {
  const visible = await visibleBoardIds(deps.db, input.workspace, input.principal);
  if (!input.boardToken) return visible;
  const { board } = await getBoardOrThrow(deps.db, { workspace: input.workspace, principal: input.principal, token: input.boardToken });
  return subtreeIds(deps.db, board.id);
}
