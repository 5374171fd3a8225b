import { sql, type SQL } from "drizzle-orm";
import type { Board } from "../db/schema";
import { inSubtreeNamed, type BoardsRef } from "./tree";

/**
 * A set of boards a read is limited to, kept as a description that becomes SQL, never as a list
 * of ids: a subtree may hold thousands of boards, and carrying them into JS and back as an IN list
 * costs time on every request. A subtree's root is named by its token, so the board token's own
 * scope needs no query of its own.
 */
export type BoardScope =
  | { kind: "board"; workspaceId: number; boardId: number }
  | { kind: "subtree"; workspaceId: number; rootToken: string };

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
