import type { Principal } from "../auth/principal";
import { getBoardOrThrow, subtreeScope, visibleScope } from "../boards";
import type { Workspace } from "../db/schema";
import type { Deps } from "../deps";
import type { Page } from "../http/pagination";
import type { MediaLinker } from "../media/links";
import { listAssets } from "./list-assets";

/** Assets on a board, or on the board and its sub-boards with `nested`. */
export async function listBoardAssets(
  deps: Deps,
  input: { workspace: Workspace; principal: Principal; token: string; nested: boolean; query?: string; page: Page; link: MediaLinker },
) {
  const { board } = await getBoardOrThrow(deps.db, input);
  const boards = input.nested ? subtreeScope(board) : { kind: "board" as const, workspaceId: board.workspaceId, boardId: board.id };
  return listAssets(deps, { workspace: input.workspace, boards, query: input.query }, input.page, input.link);
}

/** Every asset of the workspace the principal may see (a board access token: its subtree only). */
export async function listWorkspaceAssets(
  deps: Deps,
  input: { workspace: Workspace; principal: Principal; query?: string; page: Page; link: MediaLinker },
) {
  const boards = visibleScope(input.workspace, input.principal);
  return listAssets(deps, { workspace: input.workspace, boards, query: input.query }, input.page, input.link);
}
