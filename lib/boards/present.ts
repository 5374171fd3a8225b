import type { Board } from "../db/schema";
import type { BoardJson } from "../openapi/schemas/boards";

/** The wire shape is the response schema's (lib/openapi/schemas), so the reference cannot drift from this. */
export type { BoardJson };

export function toBoardJson(board: Board, parentToken: string | null): BoardJson {
  return {
    token: board.token,
    title: board.title,
    parent_token: parentToken,
    state: board.state,
    created_at: board.createdAt.toISOString(),
    updated_at: board.updatedAt.toISOString(),
  };
}
