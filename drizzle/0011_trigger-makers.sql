ALTER TABLE "triggers" ADD COLUMN "created_by" integer;--> statement-breakpoint
ALTER TABLE "triggers" ADD COLUMN "disabled_reason" text;--> statement-breakpoint
ALTER TABLE "triggers" ADD CONSTRAINT "triggers_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Triggers made with an API token belong to the token's maker; those made in a browser before this column are nobody's.
UPDATE "triggers" AS t SET "created_by" = a."created_by" FROM "api_tokens" AS a WHERE a."id" = t."created_by_token_id" AND t."created_by" IS NULL;