import { count, desc, sql, type SQL } from "drizzle-orm";
import { assetWhere, type AssetFilter } from "../assets/list-assets";
import { toAssetJson } from "../assets/present";
import { readRowsInGroups, rowBytes } from "../assets/read-in-groups";
import { assets } from "../db/schema";
import type { Deps } from "../deps";
import { offsetOf, pagy, type Page } from "../http/pagination";
import type { MediaLinker } from "../media/links";
import type { SearchPage } from "../openapi/schemas/assets";

/** The words of a query (letters and digits of any script), lower-cased. */
export function queryWords(query: string): string[] {
  return (query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 32);
}

/** A prefix-matching tsquery: every word must start a word of the document ("harb" finds "harbour"). */
export function prefixQuery(words: string[]): SQL {
  return sql`to_tsquery('simple', ${words.map((w) => `${w}:*`).join(" & ")})`;
}

export type SearchFilter = AssetFilter & { query: string };

/**
 * Full-text search over title, tags, description, text and field values (one weighted tsvector
 * column with a GIN index, the same on PGlite and PostgreSQL), prefix matching, ranked by
 * ts_rank (title hits weigh most), newest first among equals.
 */
export async function searchAssets(deps: Deps, filter: SearchFilter, page: Page, link: MediaLinker, extra?: SQL): Promise<SearchPage> {
  const words = queryWords(filter.query);
  if (!words.length) return { data: [], pagy: pagy(page, 0, 0) };
  const tsq = prefixQuery(words);
  const where = sql`${assetWhere({ ...filter, query: undefined })} and ${assets.search} @@ ${tsq}${extra ? sql` and ${extra}` : sql``}`;
  const rank = sql<number>`ts_rank(${assets.search}, ${tsq})`;
  // The ranked page's ids first, then its rows a few at a time (lib/assets/read-in-groups.ts).
  const [hits, [{ total }]] = await Promise.all([
    deps.db
      .select({ id: assets.id, bytes: rowBytes(), score: rank })
      .from(assets)
      .where(where)
      .orderBy(desc(rank), desc(assets.createdAt), desc(assets.id))
      .limit(page.perPage)
      .offset(offsetOf(page)),
    deps.db.select({ total: count() }).from(assets).where(where),
  ]);
  const scores = new Map(hits.map((h) => [h.id, h.score]));
  const rows = await readRowsInGroups(deps.db, hits);
  return {
    data: rows.map((r) => ({ ...toAssetJson(r.asset, r.boardTokens, link), score: Number(Number(scores.get(r.asset.id)).toFixed(4)) })),
    pagy: pagy(page, rows.length, total),
  };
}
