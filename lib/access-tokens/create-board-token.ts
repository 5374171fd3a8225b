import { findBoard } from "../boards";
import type { Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { notFound } from "../errors";
import type { BoardAccessTokenJson } from "../openapi/schemas/access-tokens";
import { getSecret } from "../secrets";
import { signBoardToken } from "./board-token-jwt";

/**
 * Mints a read-only board access token for a board of the workspace (and its sub-boards).
 * `forUser`: the signed-in person a page mints it for; the token then holds only while that person
 * may still read the workspace (lib/auth/verify-board-access.ts), so removal ends it at once.
 * Tokens minted through /v1 by an API token carry no person.
 */
export async function createBoardToken(deps: Deps, input: { workspace: Workspace; boardToken: string; expiresIn: number; forUser?: number }): Promise<BoardAccessTokenJson> {
  const board = await findBoard(deps.db, input.workspace.id, input.boardToken);
  if (!board) throw notFound("board_not_found", "Board");
  const secret = await getSecret(deps.db, "board_token_key");
  const { token, expiresAt } = await signBoardToken(secret, {
    workspaceId: input.workspace.id,
    boardToken: board.board.token,
    now: deps.clock(),
    expiresInSeconds: input.expiresIn,
    userId: input.forUser,
  });
  return {
    access_token: token,
    token_type: "Bearer" as const,
    board_token: board.board.token,
    expires_in: input.expiresIn,
    expires_at: expiresAt.toISOString(),
  };
}
