import { getTableName, sql } from "drizzle-orm";
import type { Db } from "../../db";
import { assetEmbeddings, assets } from "../../db/schema";
import { embed, EmbeddingsError } from "../../embeddings/client";
import type { EmbeddingsConfig } from "../../embeddings/config";

/**
 * The embedding half of ai_search: whether it takes part in this query, and the SQL of the
 * similarity between the query and each asset's stored vector.
 */
export type Semantic =
  /** No service configured, or no free words to embed: ai_search is the parser and full text. */
  | { state: "off" }
  /** A service is configured but did not give a vector for the query: full text only, and the answer says so. */
  | { state: "unavailable"; reason: string }
  | { state: "on"; model: string; text: string; vector: number[]; minSimilarity: number };

/** A search waits less for its vector than processing does: a person is waiting for the answer. */
const SEARCH_TIMEOUT_MS = 5_000;

/**
 * Embeds the query's free words (what the rules did not read as a filter: negations and filters
 * would only blur the vector, and they are applied exactly anyway).
 */
export async function semanticFor(config: EmbeddingsConfig | null, words: string[]): Promise<Semantic> {
  if (!config || !words.length) return { state: "off" };
  const text = words.join(" ");
  try {
    const [vector] = await embed(config, [text], { timeoutMs: SEARCH_TIMEOUT_MS });
    return { state: "on", model: config.model, text, vector, minSimilarity: config.minSimilarity };
  } catch (err) {
    if (!(err instanceof EmbeddingsError)) throw err;
    console.warn(`[easel] ai_search without embeddings (${err.reason}): ${err.message}`);
    return { state: "unavailable", reason: err.reason === "timeout" ? "the service timed out" : err.reason === "network" ? "the service could not be reached" : err.reason === "status" ? "the service answered an error" : "the service's answer was unusable" };
  }
}

/**
 * Cosine similarity of the query and each asset's vector (both unit length: their dot product),
 * computed in SQL over the stored `real[]`, as a lateral subquery to join to `assets`: one row per
 * asset, `similarity` null when it has no vector of this model and size. Plain SQL, so it runs on
 * any PostgreSQL, pgvector or not; a join column (not a select-list subquery) so it is computed
 * once per asset however often the outer query refers to it.
 */
export function similarityJoin(db: Db, s: { model: string; vector: number[] }) {
  const literal = `{${s.vector.join(",")}}`;
  const outerId = sql`${sql.identifier(getTableName(assets))}.${sql.identifier(assets.id.name)}`;
  return db
    .select({ similarity: sql<number | null>`sum(t.x::float8 * t.y::float8)`.as("similarity") })
    .from(sql`${assetEmbeddings} e cross join lateral unnest(e.vector, ${literal}::real[]) as t(x, y)`)
    .where(sql`e.asset_id = ${outerId} and e.model = ${s.model} and cardinality(e.vector) = ${s.vector.length}`)
    .as("similarity_of");
}
