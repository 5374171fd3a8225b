import { and, count, desc, gte, lt, not, or, sql, type SQL } from "drizzle-orm";
import type { Deps } from "../../deps";
import { assets } from "../../db/schema";
import { assetWhere, type AssetFilter } from "../../assets/list-assets";
import { boardTokensByAsset } from "../../assets/board-tokens";
import { toAssetJson } from "../../assets/present";
import type { MediaLinker } from "../../media/links";
import type { AiSearchPage } from "../../openapi/schemas/assets";
import { offsetOf, pagy, type Page } from "../../http/pagination";
import { parseQuery, type Intent, type MediaKind } from "./parse-query";

const kindCondition = (k: MediaKind): SQL => (k === "pdf" ? sql`${assets.mediaType} = 'application/pdf'` : sql`${assets.mediaType} like ${`${k}/%`}`);
const mediaNumber = (field: string) => sql`nullif(${assets.media}->>${field}, '')::float8`;
const hasColor = (colors: string[]) =>
  sql`exists (select 1 from jsonb_array_elements_text(coalesce(${assets.media}->'colors', '[]'::jsonb)) c where c in (${sql.join(colors.map((c) => sql`${c}`), sql`, `)}))`;
const tsq = (words: string[], op: "|" | "&") => sql`to_tsquery('simple', ${words.map((w) => `${w.replace(/[^\p{L}\p{N}]/gu, "")}:*`).filter((w) => w !== ":*").join(` ${op} `)})`;

/** The SQL conditions an intent stands for (all must hold). */
export function intentConditions(intent: Intent): SQL[] {
  const c: SQL[] = [];
  if (intent.kinds.length) c.push(or(...intent.kinds.map(kindCondition))!);
  for (const k of intent.notKinds) c.push(not(kindCondition(k)));
  if (intent.since) c.push(gte(assets.createdAt, intent.since));
  if (intent.until) c.push(lt(assets.createdAt, intent.until));
  if (intent.orientation === "portrait") c.push(sql`${mediaNumber("height")} > ${mediaNumber("width")}`);
  if (intent.orientation === "landscape") c.push(sql`${mediaNumber("width")} > ${mediaNumber("height")}`);
  if (intent.orientation === "square") c.push(sql`${mediaNumber("width")} = ${mediaNumber("height")}`);
  if (intent.minDurationSeconds !== undefined) c.push(sql`${mediaNumber("durationSeconds")} > ${intent.minDurationSeconds}`);
  if (intent.maxDurationSeconds !== undefined) c.push(sql`${mediaNumber("durationSeconds")} < ${intent.maxDurationSeconds}`);
  if (intent.minBytes !== undefined) c.push(sql`${assets.size} > ${intent.minBytes}`);
  if (intent.maxBytes !== undefined) c.push(sql`${assets.size} < ${intent.maxBytes}`);
  if (intent.colors.length) c.push(hasColor(intent.colors));
  if (intent.notColors.length) c.push(not(hasColor(intent.notColors)));
  if (intent.tags.length) c.push(sql`${assets.tags} @> ${JSON.stringify(intent.tags)}::jsonb`);
  if (intent.words.length) c.push(sql`${assets.search} @@ ${tsq(intent.words, "|")}`);
  if (intent.notWords.length) c.push(not(sql`${assets.search} @@ ${tsq(intent.notWords, "|")}`));
  return c;
}

/**
 * Natural-language search: the query is read into structured intent (lib/search/ai/parse-query),
 * which becomes filters, and any free words rank results by full text (more matching words rank
 * higher). The answer explains how the query was read.
 */
export async function aiSearch(deps: Deps, filter: AssetFilter & { query: string }, page: Page, link: MediaLinker): Promise<AiSearchPage> {
  const intent = parseQuery(filter.query, deps.clock());
  const where = and(assetWhere({ ...filter, query: undefined }), ...intentConditions(intent));
  const rank = intent.words.length ? sql<number>`ts_rank(${assets.search}, ${tsq(intent.words, "|")})` : sql<number>`0::float4`;
  const order = intent.words.length ? [desc(rank), desc(assets.createdAt), desc(assets.id)] : [desc(assets.createdAt), desc(assets.id)];
  const [rows, [{ total }]] = await Promise.all([
    deps.db.select({ asset: assets, score: rank }).from(assets).where(where).orderBy(...order).limit(page.perPage).offset(offsetOf(page)),
    deps.db.select({ total: count() }).from(assets).where(where),
  ]);
  const tokens = await boardTokensByAsset(deps.db, rows.map((r) => r.asset.id));
  const { explanation, ...interpretation } = intent;
  return {
    data: rows.map((r) => ({ ...toAssetJson(r.asset, tokens.get(r.asset.id) ?? [], link), score: Number(Number(r.score).toFixed(4)) })),
    pagy: pagy(page, rows.length, total),
    explanation: explanation.length ? `Looking for ${explanation.join(", ")}.` : "Showing everything, newest first: no filter was recognised.",
    interpretation: {
      ...interpretation,
      since: intent.since?.toISOString() ?? null,
      until: intent.until?.toISOString() ?? null,
    },
  };
}
