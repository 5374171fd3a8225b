import { createBoard, listBoards } from "@/lib/boards";
import { json } from "@/lib/http/envelope";
import { toPage } from "@/lib/http/pagination";
import { parseJson, parseQuery } from "@/lib/http/parse";
import { methods } from "@/lib/http/route";
import { withApi } from "@/lib/http/with-api";
import { BoardListQuery, CreateBoardBody } from "./schema";

// GET /v1/:slug/boards — top-level boards (a board access token sees its own board)
const list = withApi({ scope: "read", boardToken: true }, async ({ req, deps, workspace, principal }) => {
  const q = parseQuery(req, BoardListQuery);
  return json(await listBoards(deps, { workspace, principal, page: toPage(q) }));
});

// POST /v1/:slug/boards — create a board, optionally under a parent
const create = withApi({ scope: "write" }, async ({ req, deps, workspace }) => {
  const { board } = await parseJson(req, CreateBoardBody);
  return json({ data: await createBoard(deps, { workspace, title: board.title, parentToken: board.parent_token }) }, 201);
});

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = methods({ GET: list, POST: create });
