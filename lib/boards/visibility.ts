import { and, eq, sql } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { seesWorkspace } from "../auth/roles";
import { verifyBoardAccess } from "../auth/verify-board-access";
import type { DbOrTx } from "../db";
import { assetBoards, boards, type Asset, type Board, type Workspace } from "../db/schema";
import { boardRowInScope, type BoardScope } from "./scope";

/**
 * What a principal may see, in one place for /v1, MCP and media links:
 * - an API token: its own workspace, every board and asset in it;
 * - a board access token: its workspace, and there only its board, the boards under it and the
 *   assets on at least one of those boards;
 * - a person signed in to the web UI: every workspace for an owner, else the workspaces they are a
 *   member of (lib/auth/roles.ts).
 * Lists and search filter by the SQL form (visibleScope); a board asks canSee and a single asset
 * assetVisibleTo, which apply the same rule. Whatever is outside reads as not found, never as forbidden.
 */

export function workspaceVisibleTo(principal: Principal, workspaceId: number): boolean {
  return seesWorkspace(principal, workspaceId);
}

/**
 * The boards a principal may see in a workspace: null for "all" (API tokens, people signed in),
 * else the board access token's board and everything under it.
 */
export function visibleScope(workspace: Pick<Workspace, "id">, principal: Principal): BoardScope | null {
  if (principal.kind !== "board") return null;
  return { kind: "subtree", workspaceId: workspace.id, rootToken: principal.boardToken };
}

/**
 * May `principal` see `board` (a board of `workspace`, which the principal may see)? At most one
 * indexed lookup (the token's own board).
 */
export async function canSee(db: DbOrTx, workspace: Workspace, principal: Principal, board: Board): Promise<boolean> {
  if (principal.kind !== "board") return true;
  return (await verifyBoardAccess({ db }, principal, { workspaceId: workspace.id, board })).ok;
}

/**
 * May `principal` see `asset`? No query unless the principal is a board access token; then one
 * statement that visits only the asset's own boards (each path compared with the root's, read once
 * per statement), so its cost does not grow with the tree: HLS players ask it for every segment.
 */
export async function assetVisibleTo(db: DbOrTx, principal: Principal, asset: Pick<Asset, "id" | "workspaceId">): Promise<boolean> {
  if (!workspaceVisibleTo(principal, asset.workspaceId)) return false;
  const scope = visibleScope({ id: asset.workspaceId }, principal);
  if (!scope) return true;
  const rows = await db
    .select({ one: sql<number>`1` })
    .from(assetBoards)
    .innerJoin(boards, eq(boards.id, assetBoards.boardId))
    .where(and(eq(assetBoards.assetId, asset.id), boardRowInScope(boards, scope)))
    .limit(1);
  return rows.length > 0;
}
