import { getBoardOrThrow, toBoardJson, updateBoard } from "@/lib/boards";
import { json } from "@/lib/http/envelope";
import { parseJson } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { UpdateBoardBody } from "../schema";

// GET /v1/:slug/boards/:token — one board (board access token: within its subtree)
const show = withApi({ scope: "read", boardToken: true }, async ({ params, deps, workspace, principal }) => {
  const { board, parentToken } = await getBoardOrThrow(deps.db, { workspace, principal, token: params.boardToken });
  return json({ data: toBoardJson(board, parentToken) });
});

// PATCH /v1/:slug/boards/:token — title, state, parent_token (no cycles)
const update = withApi({ scope: "write" }, async ({ req, params, deps, workspace }) => {
  const { board } = await parseJson(req, UpdateBoardBody);
  const changes = { title: board.title, state: board.state, parentToken: board.parent_token };
  return json({ data: await updateBoard(deps, { workspace, token: params.boardToken, changes }) });
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ GET: show, PATCH: update });
