import { and, count, eq, exists, sql, type SQL } from "drizzle-orm";
import { boardRowInScope, type BoardScope } from "../boards/scope";
import type { DbOrTx } from "../db";
import { prepared } from "../db/prepared";
import { assetBoards, assets, boards, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { offsetOf, type Page } from "../http/pagination";
import type { MediaLinker } from "../media/links";
import { pageWithBoardTokens, toAssetListing } from "./asset-page";

export type AssetFilter = {
  workspace: Workspace;
  /** Only assets on at least one board in this scope (null: the whole workspace). */
  boards: BoardScope | null;
  /** Case-insensitive substring of title, description, text, a tag or a field value. */
  query?: string;
  /** Exact type ("image/png") or a whole family ("image", "image/"). */
  mediaType?: string;
  /** Assets carrying every one of these tags. */
  tags?: string[];
};

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Does any searchable text of the asset contain `term`? */
export function textMatches(term: string): SQL {
  const pattern = `%${escapeLike(term)}%`;
  return sql`(${assets.title} ilike ${pattern} or coalesce(${assets.description}, '') ilike ${pattern}
    or coalesce(${assets.text}, '') ilike ${pattern} or exists (select 1 from jsonb_array_elements_text(${assets.tags}) tag where tag ilike ${pattern})
    or exists (select 1 from jsonb_each_text(${assets.fields}) f where f.value ilike ${pattern}))`;
}

export function assetWhere(filter: AssetFilter): SQL | undefined {
  const parts: (SQL | undefined)[] = [eq(assets.workspaceId, filter.workspace.id)];
  if (filter.boards) {
    // Per asset: its own boards, each path compared with the scope's root (read once per statement).
    parts.push(
      exists(sql`(select 1 from ${assetBoards} join ${boards} on ${boards.id} = ${assetBoards.boardId}
        where ${assetBoards.assetId} = ${assets.id} and ${boardRowInScope(boards, filter.boards)})`),
    );
  }
  if (filter.query?.trim()) parts.push(textMatches(filter.query.trim()));
  if (filter.mediaType) {
    const family = filter.mediaType.replace(/\/$/, "");
    parts.push(family.includes("/") ? sql`${assets.mediaType} = ${family}` : sql`${assets.mediaType} like ${`${escapeLike(family)}/%`}`);
  }
  if (filter.tags?.length) parts.push(sql`${assets.tags} @> ${JSON.stringify(filter.tags)}::jsonb`);
  return and(...parts);
}

/**
 * The page and count queries of the listing every workspace view asks for (the whole workspace,
 * no filter), built once per database handle: building a Drizzle query costs more CPU than the
 * rest of such a request's own work. One board's listing has its own (list-board-assets.ts).
 */
function preparedWorkspaceListing(db: DbOrTx) {
  return prepared(db, "asset_listing_workspace", (d) => {
    const where = eq(assets.workspaceId, sql.placeholder("workspaceId"));
    return {
      rows: pageWithBoardTokens(d, where, sql.placeholder("limit"), sql.placeholder("offset")).prepare("asset_page_workspace"),
      total: d.select({ total: count() }).from(assets).where(where).prepare("asset_count_workspace"),
    };
  });
}

const isPlain = (filter: AssetFilter) => !filter.boards && !filter.query?.trim() && !filter.mediaType && !filter.tags?.length;

/** A page of assets, newest first, each with its board tokens: the page and the count, sent together (one round trip). */
export async function listAssets(deps: Deps, filter: AssetFilter, page: Page, link: MediaLinker) {
  const values = { workspaceId: filter.workspace.id, limit: page.perPage, offset: offsetOf(page) };
  const plain = isPlain(filter) ? preparedWorkspaceListing(deps.db) : null;
  const where = plain ? undefined : assetWhere(filter);
  const [rows, [{ total }]] = await Promise.all([
    plain ? plain.rows.execute(values) : pageWithBoardTokens(deps.db, where, values.limit, values.offset),
    plain ? plain.total.execute(values) : deps.db.select({ total: count() }).from(assets).where(where),
  ]);
  return toAssetListing(rows, total, page, link);
}
