CREATE TABLE "asset_embeddings" (
	"asset_id" integer PRIMARY KEY NOT NULL,
	"model" text NOT NULL,
	"vector" real[] NOT NULL,
	"source_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "asset_embeddings" ADD CONSTRAINT "asset_embeddings_asset_id_assets_id_fk" FOREIGN KEY ("asset_id") REFERENCES "public"."assets"("id") ON DELETE cascade ON UPDATE no action;