-- Vectors move from real[] to packed float32 (bytea): read back ~10× faster. Stored vectors are
-- dropped (there is no real[] → bytea cast); each asset gets a new one at its next processing.
DELETE FROM "asset_embeddings";--> statement-breakpoint
ALTER TABLE "asset_embeddings" ALTER COLUMN "vector" SET DATA TYPE bytea USING NULL;
