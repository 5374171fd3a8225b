import { customType, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./_columns";
import { assets } from "./assets";

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" });

/**
 * One embedding vector per asset, written by the processing job when an embeddings service is
 * configured (lib/embeddings). The vector is packed float32 little-endian in a `bytea`, not
 * pgvector's `vector` type: the migration must run on a PostgreSQL without the extension, and
 * ai_search computes the similarity itself (lib/search/ai/semantic.ts). Vectors are stored at unit
 * length, so cosine similarity is their dot product.
 */
export const assetEmbeddings = pgTable("asset_embeddings", {
  assetId: integer("asset_id")
    .primaryKey()
    .references(() => assets.id, { onDelete: "cascade" }),
  /** The model that made the vector: a vector of another model is not comparable and is ignored. */
  model: text("model").notNull(),
  vector: bytea("vector").notNull(),
  /** SHA-256 of the model and the text embedded: reprocessing unchanged content calls no service. */
  sourceHash: text("source_hash").notNull(),
  createdAt: createdAt(),
});

export type AssetEmbedding = typeof assetEmbeddings.$inferSelect;
