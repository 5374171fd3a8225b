import type { Board } from "../db/schema";

export type BoardJson = {
  token: string;
  title: string;
  parent_token: string | null;
  state: Board["state"];
  created_at: string;
  updated_at: string;
};

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
