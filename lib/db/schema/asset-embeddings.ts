import { integer, pgTable, real, text } from "drizzle-orm/pg-core";
import { createdAt } from "./_columns";
import { assets } from "./assets";

/**
 * One embedding vector per asset, written by the processing job when an embeddings service is
 * configured (lib/embeddings). A plain `real[]`, not pgvector's `vector` type: the migration must
 * run on a PostgreSQL without the extension, and ai_search computes the similarity itself.
 * Vectors are stored at unit length, so cosine similarity is their dot product.
 */
export const assetEmbeddings = pgTable("asset_embeddings", {
  assetId: integer("asset_id")
    .primaryKey()
    .references(() => assets.id, { onDelete: "cascade" }),
  /** The model that made the vector: a vector of another model is not comparable and is ignored. */
  model: text("model").notNull(),
  vector: real("vector").array().notNull(),
  /** SHA-256 of the model and the text embedded: reprocessing unchanged content calls no service. */
  sourceHash: text("source_hash").notNull(),
  createdAt: createdAt(),
});

export type AssetEmbedding = typeof assetEmbeddings.$inferSelect;
