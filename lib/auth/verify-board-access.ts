import { verifyBoardToken } from "../access-tokens/board-token-jwt";
import { findBoard } from "../boards/queries";
import { isWithin } from "../boards/tree";
import type { Clock } from "../clock";
import type { Db, DbOrTx } from "../db";
import type { Board } from "../db/schema";
import { getSecret } from "../secrets";
import { personReadsWorkspace } from "./person-reads-workspace";
import type { BoardPrincipal } from "./principal";

/**
 * Why a board access token grants nothing here. The first three are 401 unauthenticated at every
 * entry point (contract §1: a missing, unknown, revoked or expired token); the others read as not found.
 */
export type BoardAccessRefusal = "expired" | "invalid" | "revoked" | "other_workspace" | "outside_subtree";

export type BoardAccess = { ok: true; principal: BoardPrincipal } | { ok: false; reason: BoardAccessRefusal };

/** What the token must reach: a workspace, and within it a board (the token's own board or one under it). */
export type BoardAccessTarget = { workspaceId?: number; board?: Pick<Board, "id" | "workspaceId" | "ancestry" | "token"> };

/**
 * The one check of a board access token, for /v1 (authenticate, then board routes through
 * lib/boards canSee), MCP (authenticate) and media links (`?token=`):
 * - the token: HS256 signature with the instance's key, audience, and expiry on Easel's clock. One
 *   minted by an API token stands alone: revoking that API token does not end it
 *   (docs/board-access-tokens.md); it lives at most an hour, and costs no query here;
 * - the person, for a token a page minted for someone signed in: it is "revoked" once that person
 *   may no longer read its workspace (removed, or the user deleted), on the next request as their
 *   session is (contract §11); one indexed lookup;
 * - the workspace it was minted in, when a target names one;
 * - the board, when a target names one: the token's own board or a board under it (one indexed
 *   lookup of the token's board, then its materialised path; none when it is the token's board).
 * A principal already verified at the edge of this request is checked against the target only.
 */
export async function verifyBoardAccess(deps: { db: Db; clock: Clock }, credential: string, target?: BoardAccessTarget): Promise<BoardAccess>;
export async function verifyBoardAccess(deps: { db: DbOrTx }, credential: BoardPrincipal, target?: BoardAccessTarget): Promise<BoardAccess>;
export async function verifyBoardAccess(deps: { db: DbOrTx; clock?: Clock }, credential: string | BoardPrincipal, target: BoardAccessTarget = {}): Promise<BoardAccess> {
  let principal: BoardPrincipal;
  if (typeof credential === "string") {
    // The overloads guarantee a Db and a clock with a raw token.
    const verified = await verifyBoardToken(await getSecret(deps.db as Db, "board_token_key"), credential, deps.clock!());
    if (!verified.ok) return verified;
    const { jti, workspaceId, boardToken, expiresAt, userId } = verified.claims;
    if (userId !== undefined && !(await personReadsWorkspace(deps.db, userId, workspaceId))) return { ok: false, reason: "revoked" };
    principal = { kind: "board", jti, workspaceId, boardToken, expiresAt };
  } else principal = credential;
  if (target.workspaceId !== undefined && target.workspaceId !== principal.workspaceId) return { ok: false, reason: "other_workspace" };
  const board = target.board;
  if (!board) return { ok: true, principal };
  if (board.workspaceId !== principal.workspaceId) return { ok: false, reason: "other_workspace" };
  if (board.token === principal.boardToken) return { ok: true, principal };
  const own = await findBoard(deps.db, principal.workspaceId, principal.boardToken);
  return own !== null && isWithin(board, own.board) ? { ok: true, principal } : { ok: false, reason: "outside_subtree" };
}
