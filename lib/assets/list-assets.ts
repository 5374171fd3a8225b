import { and, count, desc, eq, exists, sql, type SQL } from "drizzle-orm";
import { boardRowInScope, type BoardScope } from "../boards/scope";
import type { DbOrTx } from "../db";
import { prepared } from "../db/prepared";
import { assetBoards, assets, boards, type Workspace } from "../db/schema";
import type { Deps } from "../deps";
import { offsetOf, pagy, type Page } from "../http/pagination";
import type { MediaLinker } from "../media/links";
import { boardTokensByAsset } from "./board-tokens";
import { toAssetJson } from "./present";

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
 * The page and count queries of the two filters every board view and workspace listing asks for
 * (one board, or the whole workspace; no search terms), built once per database handle: building
 * a Drizzle query costs more CPU than the rest of such a request's own work.
 */
function preparedListing(db: DbOrTx, scope: "board" | "workspace") {
  return prepared(db, `asset_listing_${scope}`, (d) => {
    const onBoard = exists(sql`(select 1 from ${assetBoards} where ${assetBoards.assetId} = ${assets.id} and ${assetBoards.boardId} = ${sql.placeholder("boardId")})`);
    const where = and(eq(assets.workspaceId, sql.placeholder("workspaceId")), scope === "board" ? onBoard : undefined);
    return {
      rows: d.select().from(assets).where(where).orderBy(desc(assets.createdAt), desc(assets.id)).limit(sql.placeholder("limit")).offset(sql.placeholder("offset")).prepare(`asset_page_${scope}`),
      total: d.select({ total: count() }).from(assets).where(where).prepare(`asset_count_${scope}`),
    };
  });
}

/** The filters preparedListing serves: a workspace, at most one board, nothing else. */
function plainScope(filter: AssetFilter): { scope: "board" | "workspace"; boardId: number } | null {
  if (filter.query?.trim() || filter.mediaType || filter.tags?.length) return null;
  if (!filter.boards) return { scope: "workspace", boardId: 0 };
  return filter.boards.kind === "board" ? { scope: "board", boardId: filter.boards.boardId } : null;
}

/** A page of assets, newest first, each with its board tokens (two queries for the whole page). */
export async function listAssets(deps: Deps, filter: AssetFilter, page: Page, link: MediaLinker) {
  const plain = plainScope(filter);
  const where = plain ? undefined : assetWhere(filter);
  const listing = plain ? preparedListing(deps.db, plain.scope) : null;
  const values = { workspaceId: filter.workspace.id, boardId: plain?.boardId ?? 0, limit: page.perPage, offset: offsetOf(page) };
  const [rows, [{ total }]] = await Promise.all([
    listing ? listing.rows.execute(values) : deps.db.select().from(assets).where(where).orderBy(desc(assets.createdAt), desc(assets.id)).limit(page.perPage).offset(offsetOf(page)),
    listing ? listing.total.execute(values) : deps.db.select({ total: count() }).from(assets).where(where),
  ]);
  const tokens = await boardTokensByAsset(deps.db, rows.map((r) => r.id));
  return { data: rows.map((a) => toAssetJson(a, tokens.get(a.id) ?? [], link)), pagy: pagy(page, rows.length, total) };
}
