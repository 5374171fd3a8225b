import { sql, type AnyColumn, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Principal } from "../auth/principal";
import type { DbOrTx } from "../db";
import { boards, type Board, type Workspace } from "../db/schema";
import { findBoard } from "./queries";
import { inSubtreeOf, isWithin } from "./tree";

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

// In raw SQL an alias renders as its bare name, so the FROM clause names the table beside it.
const root = alias(boards, "scope_root");
const member = alias(boards, "scope_member");
const fromBoardsAs = (name: string) => sql`${boards} ${sql.identifier(name)}`;

/**
 * SQL: the board id in `boardId` (a column of the enclosing query) lies in `scope`. A subtree is
 * one indexed prefix range under its root (lib/boards/tree.ts), a subquery the planner joins; a
 * root token that names no board of the workspace matches nothing.
 */
export function inScope(boardId: AnyColumn | SQL, scope: BoardScope): SQL {
  if (scope.kind === "board") return sql`${boardId} = ${scope.boardId}`;
  return sql`${boardId} in (select ${member.id} from ${fromBoardsAs("scope_root")} join ${fromBoardsAs("scope_member")} on ${inSubtreeOf(member, root)}
    where ${root.workspaceId} = ${scope.workspaceId} and ${root.token} = ${scope.rootToken})`;
}

/** May `principal` see `board` (a board of `workspace`)? At most one indexed lookup (the token's own board). */
export async function canSee(db: DbOrTx, workspace: Workspace, principal: Principal, board: Board): Promise<boolean> {
  if (principal.kind !== "board") return true;
  if (board.token === principal.boardToken) return board.workspaceId === workspace.id;
  const own = await findBoard(db, workspace.id, principal.boardToken);
  return own !== null && isWithin(board, own.board);
}
