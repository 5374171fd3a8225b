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
-- Existing boards get their materialised path from the parent links they already have. Boards
-- nest at most 50 levels now (depth 0..49): a board deeper than that, from before the limit, is
-- moved up to hang from its ancestor at depth 48, so it sits at depth 49 beside that ancestor's
-- child on its path. Every board stays inside the same top-49 subtrees (a board token of those
-- boards sees what it saw); a token of a board that was deeper sees less, never more. Paths stay
-- at most 49 ids long, so no index entry can outgrow PostgreSQL's btree limit.
WITH RECURSIVE tree("id", "depth", "ancestry", "anchor") AS (
  SELECT "id", 0, '/'::text, NULL::integer FROM "boards" WHERE "parent_id" IS NULL
  UNION ALL
  SELECT b."id", tree."depth" + 1,
    CASE WHEN tree."depth" < 49 THEN tree."ancestry" || tree."id"::text || '/' ELSE tree."ancestry" END,
    CASE WHEN tree."depth" = 48 THEN tree."id" ELSE tree."anchor" END
  FROM "boards" b JOIN tree ON b."parent_id" = tree."id"
)
UPDATE "boards" AS b
SET "ancestry" = tree."ancestry",
    "depth" = LEAST(tree."depth", 49),
    "parent_id" = CASE WHEN tree."depth" > 49 THEN tree."anchor" ELSE b."parent_id" END
FROM tree
WHERE b."id" = tree."id" AND (b."ancestry" <> tree."ancestry" OR b."depth" <> LEAST(tree."depth", 49) OR tree."depth" > 49);
