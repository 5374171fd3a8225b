CREATE TABLE "sign_in_failures" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "sign_in_failures_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"subject" text NOT NULL,
	"failed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "boards" ADD COLUMN "ancestry" text DEFAULT '/' NOT NULL;--> statement-breakpoint
ALTER TABLE "boards" ADD COLUMN "depth" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "sign_in_failures_subject_idx" ON "sign_in_failures" USING btree ("subject","failed_at");--> statement-breakpoint
CREATE INDEX "boards_workspace_ancestry_idx" ON "boards" USING btree ("workspace_id","ancestry" text_pattern_ops);--> statement-breakpoint
-- Existing boards get their materialised path from the parent links they already have.
WITH RECURSIVE tree("id", "ancestry", "depth") AS (
  SELECT "id", '/'::text, 0 FROM "boards" WHERE "parent_id" IS NULL
  UNION ALL
  SELECT b."id", tree."ancestry" || tree."id"::text || '/', tree."depth" + 1 FROM "boards" b JOIN tree ON b."parent_id" = tree."id"
)
UPDATE "boards" AS b SET "ancestry" = tree."ancestry", "depth" = tree."depth" FROM tree WHERE b."id" = tree."id" AND (b."ancestry" <> tree."ancestry" OR b."depth" <> tree."depth");
