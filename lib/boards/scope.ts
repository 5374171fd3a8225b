import type { Principal } from "../auth/principal";
import type { DbOrTx } from "../db";
import type { Workspace } from "../db/schema";
import { findBoard, subtreeIds } from "./queries";

/**
 * The boards a principal may see in a workspace: null for "all" (API tokens, admins), else the ids
 * of the board access token's board and its sub-boards. Everything outside reads as not found.
 */
export async function visibleBoardIds(db: DbOrTx, workspace: Workspace, principal: Principal): Promise<number[] | null> {
  if (principal.kind !== "board") return null;
  const root = await findBoard(db, workspace.id, principal.boardToken);
  return root ? subtreeIds(db, root.board.id) : [];
}
