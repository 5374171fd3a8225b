import { eq } from "drizzle-orm";
import { assetEmbeddings, assets } from "../db/schema";
import type { Deps } from "../deps";
import { log } from "../log/logger.mjs";
import { embeddingText, sourceHash } from "./asset-text";
import { embed, EmbeddingsError } from "./client";
import type { EmbeddingsConfig } from "./config";
import { packVector } from "./vector";

export type EmbedResult = { status: "embedded" | "unchanged" | "gone" } | { status: "failed"; reason: string };

/** A processing job waits this long for a vector; the service being slow must not hold processing up for long. */
const PROCESSING_TIMEOUT_MS = 20_000;

/**
 * Computes and stores the vector of an asset's current content. Never throws for the service's
 * sake: an unreachable, failing or nonsensical service answers `failed` (logged), and the asset
 * simply has no new vector; ai_search then matches it by full text alone.
 */
export async function embedAsset(deps: Deps, config: EmbeddingsConfig, assetId: number): Promise<EmbedResult> {
  const [asset] = await deps.db.select().from(assets).where(eq(assets.id, assetId));
  if (!asset) return { status: "gone" };
  const text = embeddingText(asset);
  const hash = sourceHash(config.model, text);
  const [stored] = await deps.db.select({ sourceHash: assetEmbeddings.sourceHash }).from(assetEmbeddings).where(eq(assetEmbeddings.assetId, assetId));
  if (stored?.sourceHash === hash) return { status: "unchanged" };
  let vector: number[];
  try {
    [vector] = await embed(config, [text], { timeoutMs: PROCESSING_TIMEOUT_MS });
  } catch (err) {
    if (!(err instanceof EmbeddingsError)) throw err;
    log().warn({ component: "embeddings", asset_id: assetId, reason: err.reason, err }, "no embedding for the asset: ai_search matches it by full text alone");
    return { status: "failed", reason: err.reason };
  }
  const row = { assetId, model: config.model, vector: packVector(vector), sourceHash: hash, createdAt: deps.clock() };
  try {
    await deps.db.insert(assetEmbeddings).values(row).onConflictDoUpdate({ target: assetEmbeddings.assetId, set: { model: row.model, vector: row.vector, sourceHash: row.sourceHash, createdAt: row.createdAt } });
  } catch (err) {
    // Deleted while the service answered: the foreign key refused the row, and there is nothing to keep.
    const [still] = await deps.db.select({ id: assets.id }).from(assets).where(eq(assets.id, assetId));
    if (!still) return { status: "gone" };
    throw err;
  }
  return { status: "embedded" };
}
