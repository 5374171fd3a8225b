import type { Principal } from "../auth/principal";
import type { DbOrTx } from "../db";
import type { Workspace } from "../db/schema";
import { notFound } from "../errors";
import { findBoard, type BoardWithParent } from "./queries";
import { canSee } from "./visibility";

/** A board of the workspace that the principal may see, or 404 board_not_found. */
export async function getBoardOrThrow(
  db: DbOrTx,
  input: { workspace: Workspace; principal: Principal; token: string },
): Promise<BoardWithParent> {
  const found = await findBoard(db, input.workspace.id, input.token);
  if (!found || !(await canSee(db, input.workspace, input.principal, found.board))) throw notFound("board_not_found", "Board");
  return found;
}
