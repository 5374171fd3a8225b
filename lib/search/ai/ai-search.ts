import { and, count, desc, gte, inArray, lt, not, or, sql, type SQL } from "drizzle-orm";
import { assetWhere, type AssetFilter } from "../../assets/list-assets";
import { toAssetJson } from "../../assets/present";
import { readRowsInGroups, rowBytes, type PageEntry } from "../../assets/read-in-groups";
import { assets } from "../../db/schema";
import type { Deps } from "../../deps";
import { embeddingsConfig } from "../../embeddings/config";
import { offsetOf, pagy, type Page } from "../../http/pagination";
import type { MediaLinker } from "../../media/links";
import type { AiSearchPage } from "../../openapi/schemas/assets";
import { parseQuery, type Intent, type MediaKind } from "./parse-query";
import { rankByMeaning, semanticFor, type Semantic } from "./semantic";

const kindCondition = (k: MediaKind): SQL => (k === "pdf" ? sql`${assets.mediaType} = 'application/pdf'` : sql`${assets.mediaType} like ${`${k}/%`}`);
const mediaNumber = (field: string) => sql`nullif(${assets.media}->>${field}, '')::float8`;
const hasColor = (colors: string[]) =>
  sql`exists (select 1 from jsonb_array_elements_text(coalesce(${assets.media}->'colors', '[]'::jsonb)) c where c in (${sql.join(colors.map((c) => sql`${c}`), sql`, `)}))`;
const tsq = (words: string[], op: "|" | "&") => sql`to_tsquery('simple', ${words.map((w) => `${w.replace(/[^\p{L}\p{N}]/gu, "")}:*`).filter((w) => w !== ":*").join(` ${op} `)})`;

/**
 * The filters an intent stands for (all must hold). Its free words are not among them: how they
 * admit assets depends on the ranking (full text alone, or with meaning).
 */
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
  if (intent.notWords.length) c.push(not(sql`${assets.search} @@ ${tsq(intent.notWords, "|")}`));
  return c;
}

/** An asset of the page, ranked: its rows are read after, a few at a time (lib/assets/read-in-groups.ts). */
type Hit = PageEntry & { score: number };

/** Parser and full text: the free words must match (any of them), more matches rank higher. */
async function byFullText(deps: Deps, base: SQL | undefined, intent: Intent, page: Page): Promise<[Hit[], number]> {
  const where = and(base, ...(intent.words.length ? [sql`${assets.search} @@ ${tsq(intent.words, "|")}`] : []));
  const rank = intent.words.length ? sql<number>`ts_rank(${assets.search}, ${tsq(intent.words, "|")})` : sql<number>`0::float4`;
  const order = intent.words.length ? [desc(rank), desc(assets.createdAt), desc(assets.id)] : [desc(assets.createdAt), desc(assets.id)];
  const [rows, [{ total }]] = await Promise.all([
    deps.db.select({ id: assets.id, bytes: rowBytes(), score: rank }).from(assets).where(where).orderBy(...order).limit(page.perPage).offset(offsetOf(page)),
    deps.db.select({ total: count() }).from(assets).where(where),
  ]);
  return [rows, total];
}

/** Parser, full text and meaning (lib/search/ai/semantic.ts): ranked in full, then the page's sizes read. */
async function byMeaning(deps: Deps, base: SQL | undefined, intent: Intent, semantic: Extract<Semantic, { state: "on" }>, page: Page): Promise<[Hit[], number]> {
  const ranked = await rankByMeaning(deps.db, base, tsq(intent.words, "|"), semantic);
  const slice = ranked.slice(offsetOf(page), offsetOf(page) + page.perPage);
  const sizes = slice.length ? await deps.db.select({ id: assets.id, bytes: rowBytes() }).from(assets).where(inArray(assets.id, slice.map((r) => r.id))) : [];
  const bytesOf = new Map(sizes.map((s) => [s.id, s.bytes]));
  // A row deleted between the two reads is left out of the page.
  return [slice.flatMap((r) => (bytesOf.has(r.id) ? [{ id: r.id, bytes: bytesOf.get(r.id)!, score: r.score }] : [])), ranked.length];
}

function explain(intent: Intent, semantic: Semantic): string {
  const read = intent.explanation.length ? `Looking for ${intent.explanation.join(", ")}.` : "Showing everything, newest first: no filter was recognised.";
  if (semantic.state === "on") {
    return `${read} Ranked by full-text match plus closeness in meaning to “${semantic.text}” (embeddings of model ${semantic.model}); assets whose words do not match are included when their similarity is at least ${semantic.minSimilarity}, and assets without a vector are found by full text only.`;
  }
  if (semantic.state === "unavailable") return `${read} Embeddings are configured but unavailable (${semantic.reason}): matched by full text only.`;
  return read;
}

/**
 * Natural-language search: the query is read into structured intent (lib/search/ai/parse-query),
 * which becomes filters, and any free words rank results by full text (more matching words rank
 * higher) and, when an embeddings service is configured and answers, by closeness in meaning
 * (docs/search.md). The answer explains how the query was read and ranked.
 */
export async function aiSearch(deps: Deps, filter: AssetFilter & { query: string }, page: Page, link: MediaLinker): Promise<AiSearchPage> {
  const intent = parseQuery(filter.query, deps.clock());
  const semantic = await semanticFor(embeddingsConfig(), intent.words);
  const base = and(assetWhere({ ...filter, query: undefined }), ...intentConditions(intent));
  const [hits, total] = semantic.state === "on" ? await byMeaning(deps, base, intent, semantic, page) : await byFullText(deps, base, intent, page);
  const scores = new Map(hits.map((h) => [h.id, h.score]));
  const rows = await readRowsInGroups(deps.db, hits);
  const { explanation: _phrases, ...interpretation } = intent;
  return {
    data: rows.map((r) => ({ ...toAssetJson(r.asset, r.boardTokens, link), score: Number(Number(scores.get(r.asset.id)).toFixed(4)) })),
    pagy: pagy(page, rows.length, total),
    explanation: explain(intent, semantic),
    interpretation: {
      ...interpretation,
      since: intent.since?.toISOString() ?? null,
      until: intent.until?.toISOString() ?? null,
    },
  };
}
