import { and, eq, exists, sql } from "drizzle-orm";
import type { Principal } from "../auth/principal";
import { canSee, getBoardOrThrow, subtreeScope, visibleScope } from "../boards";
import type { DbOrTx } from "../db";
import { prepared } from "../db/prepared";
import { assetBoards, assets, boards, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { notFound } from "../errors";
import { offsetOf, type Page } from "../http/pagination";
import type { MediaLinker } from "../media/links";
import { pageEntries, pageWithBoardTokens, readPageRows, toAssetListing } from "./asset-page";
import { listAssets } from "./list-assets";

type BoardListingInput = { workspace: Workspace; principal: Principal; token: string; nested: boolean; query?: string; md5?: string; page: Page; link: MediaLinker };

/** Assets on a board, or on the board and its sub-boards with `nested`. */
export async function listBoardAssets(deps: Deps, input: BoardListingInput) {
  if (!input.nested && !input.query?.trim() && !input.md5) return listOneBoard(deps, input);
  const { board } = await getBoardOrThrow(deps.db, input);
  const boards = input.nested ? subtreeScope(board) : { kind: "board" as const, workspaceId: board.workspaceId, boardId: board.id };
  return listAssets(deps, { workspace: input.workspace, boards, query: input.query, md5: input.md5 }, input.page, input.link);
}

/**
 * The board view's two statements, each naming the board by its token, so both go out at once
 * (one round trip): the board with its asset count, and the page of its assets with their board
 * tokens (on the embedded database, the page's ids and then its rows a few at a time:
 * asset-page.ts's readPageRows). Built once per database handle. Whether the principal may see
 * the board is decided after, from the board's row; the page of a board they may not see is
 * dropped unread.
 */
function preparedBoardListing(db: DbOrTx) {
  return prepared(db, "board_asset_listing", (d) => {
    const workspaceId = sql.placeholder("workspaceId");
    const boardId = sql`(select ${boards.id} from ${boards} where ${boards.workspaceId} = ${workspaceId} and ${boards.token} = ${sql.placeholder("token")})`;
    const onBoard = exists(sql`(select 1 from ${assetBoards} where ${assetBoards.assetId} = ${assets.id} and ${assetBoards.boardId} = ${boardId})`);
    // Qualified by hand: Drizzle renders a one-table select's columns unqualified, and inside this
    // subquery an unqualified `id` or `workspace_id` would name the asset's.
    const assetCount = sql<number>`(select count(*)::int from ${assets} a where a.workspace_id = ${boards}.workspace_id
      and exists (select 1 from ${assetBoards} ab where ab.asset_id = a.id and ab.board_id = ${boards}.id))`;
    return {
      board: d
        .select({ board: boards, assetCount })
        .from(boards)
        .where(and(eq(boards.workspaceId, workspaceId), eq(boards.token, sql.placeholder("token"))))
        .limit(1)
        .prepare("board_with_asset_count"),
      rows: pageWithBoardTokens(d, and(eq(assets.workspaceId, workspaceId), onBoard), sql.placeholder("limit"), sql.placeholder("offset")).prepare("asset_page_board"),
      entries: pageEntries(d, and(eq(assets.workspaceId, workspaceId), onBoard), sql.placeholder("limit"), sql.placeholder("offset")).prepare("asset_page_entries_board"),
    };
  });
}

async function listOneBoard(deps: Deps, input: BoardListingInput) {
  const listing = preparedBoardListing(deps.db);
  const values = { workspaceId: input.workspace.id, token: input.token, limit: input.page.perPage, offset: offsetOf(input.page) };
  const [[found], rows] = await Promise.all([
    listing.board.execute(values),
    readPageRows(deps.db, { rows: () => listing.rows.execute(values), entries: () => listing.entries.execute(values) }),
  ]);
  if (!found || !(await canSee(deps.db, input.workspace, input.principal, found.board))) throw notFound("board_not_found", "Board");
  return toAssetListing(rows, found.assetCount, input.page, input.link);
}

/** Every asset of the workspace the principal may see (a board access token: its subtree only). */
export async function listWorkspaceAssets(
  deps: Deps,
  input: { workspace: Workspace; principal: Principal; query?: string; md5?: string; page: Page; link: MediaLinker },
) {
  const boards = visibleScope(input.workspace, input.principal);
  return listAssets(deps, { workspace: input.workspace, boards, query: input.query, md5: input.md5 }, input.page, input.link);
}
