import { and, desc, eq, lt, sql, type SQL } from "drizzle-orm";
import { isSingleSession, type Db } from "../../db";
import { assetEmbeddings, assets } from "../../db/schema";
import { embed, EmbeddingsError } from "../../embeddings/client";
import type { EmbeddingsConfig } from "../../embeddings/config";
import { dotWithStored } from "../../embeddings/vector";
import { log } from "../../log/logger.mjs";

/**
 * The embedding half of ai_search: whether it takes part in this query, and the ranking of the
 * assets in scope by the similarity of their stored vectors to the query's.
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
    log().warn({ component: "search", reason: err.reason, err }, "ai_search without embeddings: matched by full text only");
    return { state: "unavailable", reason: err.reason === "timeout" ? "the service timed out" : err.reason === "network" ? "the service could not be reached" : err.reason === "status" ? "the service answered an error" : "the service's answer was unusable" };
  }
}

/** Assets whose vectors are read per query, a chunk at a time, so memory stays bounded on any workspace. */
const CHUNK = 2000;

export type Ranked = { id: number; score: number };

/**
 * Every asset that passes `base` (the parsed filters and the route's), scored by meaning: in when
 * its words match `words` or its vector is at least `minSimilarity` close to the query's; score =
 * full-text rank (0 when the words do not match) + similarity (0 without a vector of this model).
 * The similarity is a dot product in JS over the stored float32 vectors, read by id in chunks:
 * plain SQL, so it runs on any PostgreSQL, pgvector or not; it is a scan, not an index. Ordered
 * best first, newest first among equals.
 */
export async function rankByMeaning(db: Db, base: SQL | undefined, words: SQL, s: Extract<Semantic, { state: "on" }>): Promise<Ranked[]> {
  const query = Float64Array.from(s.vector);
  const matched = sql<boolean>`${assets.search} @@ ${words}`;
  const kept: (Ranked & { at: number })[] = [];
  // Vectors are read back as raw bytes from postgres.js, as base64 text from PGlite, whose driver
  // decodes a bytea column about 10× slower than Node decodes the same bytes from base64.
  const base64 = isSingleSession(db);
  const vector = base64 ? sql<string | null>`encode(${assetEmbeddings.vector}, 'base64')` : sql<Uint8Array | null>`${assetEmbeddings.vector}`;
  for (let after: number | null = null; ; ) {
    const rows = await db
      .select({ id: assets.id, createdAt: assets.createdAt, matched, rank: sql<number>`case when ${matched} then ts_rank(${assets.search}, ${words}) else 0 end`, vector })
      .from(assets)
      .leftJoin(assetEmbeddings, and(eq(assetEmbeddings.assetId, assets.id), eq(assetEmbeddings.model, s.model)))
      .where(after === null ? base : and(base, lt(assets.id, after)))
      .orderBy(desc(assets.id))
      .limit(CHUNK);
    for (const r of rows) {
      const similarity = r.vector ? dotWithStored(query, typeof r.vector === "string" ? Buffer.from(r.vector, "base64") : r.vector) : null;
      if (!r.matched && !(similarity !== null && similarity >= s.minSimilarity)) continue;
      kept.push({ id: r.id, at: new Date(r.createdAt).getTime(), score: Number(r.rank) + Math.max(similarity ?? 0, 0) });
    }
    if (rows.length < CHUNK) break;
    after = rows[rows.length - 1].id;
  }
  kept.sort((a, b) => b.score - a.score || b.at - a.at || b.id - a.id);
  return kept.map(({ id, score }) => ({ id, score }));
}
