import { and, asc, count, eq, inArray, isNull, type SQL } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { boards, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { offsetOf, pagy, type Page } from "../http/pagination";
import { getBoardOrThrow } from "./get-board-or-throw";
import { toBoardJson } from "./present";
import { findBoard, selectBoards } from "./queries";

async function page(deps: Deps, where: SQL | undefined, p: Page) {
  const [rows, [{ total }]] = await Promise.all([
    selectBoards(deps.db).where(where).orderBy(asc(boards.createdAt), asc(boards.id)).limit(p.perPage).offset(offsetOf(p)),
    deps.db.select({ total: count() }).from(boards).where(where),
  ]);
  return { data: rows.map((r) => toBoardJson(r.board, r.parentToken)), pagy: pagy(p, rows.length, total) };
}

/** Top-level boards of a workspace; a board access token sees only its own board. */
export async function listBoards(deps: Deps, input: { workspace: Workspace; principal: Principal; page: Page }) {
  if (input.principal.kind === "board") {
    const own = await findBoard(deps.db, input.workspace.id, input.principal.boardToken);
    return page(deps, own ? inArray(boards.id, [own.board.id]) : inArray(boards.id, [-1]), input.page);
  }
  return page(deps, and(eq(boards.workspaceId, input.workspace.id), isNull(boards.parentId)), input.page);
}

/** Direct sub-boards of a board the principal may see. */
export async function listChildren(deps: Deps, input: { workspace: Workspace; principal: Principal; token: string; page: Page }) {
  const { board } = await getBoardOrThrow(deps.db, input);
  return page(deps, and(eq(boards.workspaceId, input.workspace.id), eq(boards.parentId, board.id)), input.page);
}
