import { count, desc, sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { assets } from "../db/schema";
import { assetWhere, type AssetFilter } from "../assets/list-assets";
import { boardTokensByAsset } from "../assets/board-tokens";
import { toAssetJson } from "../assets/present";
import type { MediaLinker } from "../media/links";
import { offsetOf, pagy, type Page } from "../http/pagination";

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Relevance of an asset to a term: a title hit weighs most, then a tag, then description, text or
 * a field value. Whole-word hits in the title beat substrings.
 */
export function relevance(term: string) {
  const p = `%${escapeLike(term)}%`;
  const word = `(^|[^[:alnum:]])${term.replace(/[^A-Za-z0-9]/g, (c) => `\\${c}`)}([^[:alnum:]]|$)`;
  return sql<number>`(case when ${assets.title} ~* ${word} then 8 when ${assets.title} ilike ${p} then 5 else 0 end
    + case when array_to_string(${assets.tags}, ' ') ilike ${p} then 3 else 0 end
    + case when coalesce(${assets.description}, '') ilike ${p} then 2 else 0 end
    + case when coalesce(${assets.text}, '') ilike ${p} then 1 else 0 end
    + case when exists (select 1 from jsonb_each_text(${assets.fields}) f where f.value ilike ${p}) then 1 else 0 end)`;
}

/** Ranked search over title, description, text, tags and field values: best match first, then newest. */
export async function searchAssets(deps: Deps, filter: AssetFilter & { query: string }, page: Page, link: MediaLinker) {
  const where = assetWhere(filter);
  const rank = relevance(filter.query.trim());
  const [rows, [{ total }]] = await Promise.all([
    deps.db
      .select({ asset: assets, score: rank })
      .from(assets)
      .where(where)
      .orderBy(desc(rank), desc(assets.createdAt), desc(assets.id))
      .limit(page.perPage)
      .offset(offsetOf(page)),
    deps.db.select({ total: count() }).from(assets).where(where),
  ]);
  const tokens = await boardTokensByAsset(deps.db, rows.map((r) => r.asset.id));
  return {
    data: rows.map((r) => ({ ...toAssetJson(r.asset, tokens.get(r.asset.id) ?? [], link), score: Number(r.score) })),
    pagy: pagy(page, rows.length, total),
  };
}
