ALTER TABLE "api_tokens" ADD COLUMN "created_by" integer;--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "api_tokens_workspace_created_by_idx" ON "api_tokens" USING btree ("workspace_id","created_by");