import { sql, type SQL } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import type { DbOrTx } from "../db";
import type { Board, Workspace } from "../db/schema";
import { findBoard } from "./queries";
import { inSubtreeNamed, isWithin, type BoardsRef } from "./tree";

/**
 * A set of boards a read is limited to, kept as a description that becomes SQL, never as a list
 * of ids: a subtree may hold thousands of boards, and carrying them into JS and back as an IN list
 * costs time on every request. A subtree's root is named by its token, so the board token's own
 * scope needs no query of its own.
 */
export type BoardScope =
  | { kind: "board"; workspaceId: number; boardId: number }
  | { kind: "subtree"; workspaceId: number; rootToken: string };

/**
 * The boards a principal may see in a workspace: null for "all" (API tokens, people signed in),
 * else the board access token's board and everything under it. Everything outside reads as not found.
 */
export function visibleScope(workspace: Workspace, principal: Principal): BoardScope | null {
  if (principal.kind !== "board") return null;
  return { kind: "subtree", workspaceId: workspace.id, rootToken: principal.boardToken };
}

/** A board and everything under it. */
export function subtreeScope(board: Pick<Board, "workspaceId" | "token">): BoardScope {
  return { kind: "subtree", workspaceId: board.workspaceId, rootToken: board.token };
}

/**
 * SQL: the board row `m` (an alias of `boards` in the enclosing query, reached from a row that
 * names it, such as an asset_boards row) lies in `scope`.
 */
export function boardRowInScope(m: BoardsRef, scope: BoardScope): SQL {
  if (scope.kind === "board") return sql`${m.id} = ${scope.boardId}`;
  return inSubtreeNamed(m, scope.workspaceId, scope.rootToken);
}

/** May `principal` see `board` (a board of `workspace`)? At most one indexed lookup (the token's own board). */
export async function canSee(db: DbOrTx, workspace: Workspace, principal: Principal, board: Board): Promise<boolean> {
  if (principal.kind !== "board") return true;
  if (board.token === principal.boardToken) return board.workspaceId === workspace.id;
  const own = await findBoard(db, workspace.id, principal.boardToken);
  return own !== null && isWithin(board, own.board);
}
