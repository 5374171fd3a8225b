import { and, count, eq, exists, sql, type SQL } from "drizzle-orm";
import { boardRowInScope, type BoardScope } from "../boards/scope";
import type { DbOrTx } from "../db";
import { prepared } from "../db/prepared";
import { assetBoards, assets, boards, type Workspace } from "../db/schema";
import { isSingleSession } from "../db/types";
import type { Deps } from "../deps";
import { offsetOf, type Page } from "../http/pagination";
import type { MediaLinker } from "../media/links";
import { pageEntries, pageWithBoardTokens, readPageRows, toAssetListing } from "./asset-page";
import { readRowsInGroups } from "./read-in-groups";
import { scanTextMatches } from "./scan-text-matches";

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
  /** Assets whose head content has this md5 (32 lowercase hex digits, validated by the route). */
  md5?: string;
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
  if (filter.md5) parts.push(eq(assets.md5, filter.md5));
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
      entries: pageEntries(d, where, sql.placeholder("limit"), sql.placeholder("offset")).prepare("asset_page_entries_workspace"),
      total: d.select({ total: count() }).from(assets).where(where).prepare("asset_count_workspace"),
    };
  });
}

const isPlain = (filter: AssetFilter) => !filter.boards && !filter.query?.trim() && !filter.mediaType && !filter.tags?.length && !filter.md5;

/**
 * A page of assets, newest first, each with its board tokens: the page and the count, sent
 * together (one round trip; on the embedded database, the page's ids and then its rows a few at a
 * time: asset-page.ts's readPageRows).
 */
export async function listAssets(deps: Deps, filter: AssetFilter, page: Page, link: MediaLinker) {
  const term = filter.query?.trim();
  if (term && isSingleSession(deps.db)) {
    // The embedded database runs the substring test on this thread: in pieces (scan-text-matches.ts).
    const matching = await scanTextMatches(deps.db, assetWhere({ ...filter, query: undefined }), textMatches(term));
    const entries = matching.slice(offsetOf(page), offsetOf(page) + page.perPage);
    return toAssetListing(await readRowsInGroups(deps.db, entries), matching.length, page, link);
  }
  const values = { workspaceId: filter.workspace.id, limit: page.perPage, offset: offsetOf(page) };
  const plain = isPlain(filter) ? preparedWorkspaceListing(deps.db) : null;
  const where = plain ? undefined : assetWhere(filter);
  const [rows, [{ total }]] = await Promise.all([
    readPageRows(deps.db, {
      rows: () => (plain ? plain.rows.execute(values) : pageWithBoardTokens(deps.db, where, values.limit, values.offset)),
      entries: () => (plain ? plain.entries.execute(values) : pageEntries(deps.db, where, values.limit, values.offset)),
    }),
    plain ? plain.total.execute(values) : deps.db.select({ total: count() }).from(assets).where(where),
  ]);
  return toAssetListing(rows, total, page, link);
}
