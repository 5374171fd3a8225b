CREATE TABLE "workspaces" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "workspaces_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"plan" text NOT NULL,
	"trial_of" text,
	"storage_kind" text NOT NULL,
	"streaming_enabled" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "users_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"role" text DEFAULT 'admin' NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_tokens" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "api_tokens_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"workspace_id" integer NOT NULL,
	"name" text NOT NULL,
	"token_hash" text NOT NULL,
	"token_prefix" text NOT NULL,
	"scopes" text[] NOT NULL,
	"webhooks" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "boards" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "boards_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"workspace_id" integer NOT NULL,
	"token" text NOT NULL,
	"title" text NOT NULL,
	"parent_id" integer,
	"state" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "asset_boards" (
	"asset_id" integer NOT NULL,
	"board_id" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "asset_boards_asset_id_board_id_pk" PRIMARY KEY("asset_id","board_id")
);
--> statement-breakpoint
CREATE TABLE "assets" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "assets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"workspace_id" integer NOT NULL,
	"token" text NOT NULL,
	"title" text NOT NULL,
	"description" text,
	"text" text,
	"media_type" text NOT NULL,
	"size" bigint NOT NULL,
	"md5" text NOT NULL,
	"storage_key" text NOT NULL,
	"tags" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"fields" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"media" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"thumbnails" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"stream_key" text,
	"encode_status" text DEFAULT 'none' NOT NULL,
	"encode_error" text,
	"next_version_number" integer DEFAULT 1 NOT NULL,
	"head_source" text DEFAULT 'UPLOAD' NOT NULL,
	"reverted_from" integer,
	"created_by_token" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (setweight(to_tsvector('simple', coalesce(title, '')), 'A') || setweight(jsonb_to_tsvector('simple', tags, '["string"]'), 'B') || setweight(to_tsvector('simple', coalesce(description, '')), 'C') || setweight(to_tsvector('simple', coalesce(text, '')), 'D') || setweight(jsonb_to_tsvector('simple', fields, '["string"]'), 'D')) STORED
);
--> statement-breakpoint
CREATE TABLE "asset_versions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "asset_versions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"asset_id" integer NOT NULL,
	"version_number" integer NOT NULL,
	"source" text NOT NULL,
	"comment" text,
	"title" text NOT NULL,
	"description" text,
	"text" text,
	"media_type" text NOT NULL,
	"size" bigint NOT NULL,
	"md5" text NOT NULL,
	"storage_key" text NOT NULL,
	"thumbnails" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"media" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_by_token" text,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "upload_sessions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "upload_sessions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"workspace_id" integer NOT NULL,
	"handle" text NOT NULL,
	"storage_key" text NOT NULL,
	"storage_kind" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"title" text,
	"media_type" text NOT NULL,
	"size" bigint NOT NULL,
	"md5" text,
	"collection_token" text,
	"multipart_upload_id" text,
	"asset_id" integer,
	"consumed_as" text,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "triggers" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" integer NOT NULL,
	"board_id" integer NOT NULL,
	"hook" text NOT NULL,
	"hook_url" text NOT NULL,
	"secret" text NOT NULL,
	"created_by_token_id" integer,
	"expiration_date" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone,
	"disabled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook_deliveries_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"trigger_id" text NOT NULL,
	"message_id" text NOT NULL,
	"event" text NOT NULL,
	"payload" jsonb NOT NULL,
	"attempt" integer NOT NULL,
	"status" text NOT NULL,
	"response_status" integer,
	"error" text,
	"duration_ms" integer,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "idempotency_keys_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"principal" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"response_status" integer,
	"response_body" jsonb,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_calls" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "job_calls_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"run_id" text NOT NULL,
	"step_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"status" integer NOT NULL,
	"outcome" text NOT NULL,
	"error" text,
	"started_at" timestamp with time zone NOT NULL,
	"duration_ms" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_crons" (
	"function_id" text NOT NULL,
	"cron" text NOT NULL,
	"next_at" timestamp with time zone NOT NULL,
	CONSTRAINT "job_crons_function_id_cron_pk" PRIMARY KEY("function_id","cron")
);
--> statement-breakpoint
CREATE TABLE "job_events" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"payload" jsonb NOT NULL,
	"dedupe_key" text,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_functions" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"url" text NOT NULL,
	"triggers" jsonb NOT NULL,
	"concurrency" jsonb NOT NULL,
	"max_attempts" integer NOT NULL,
	"synced_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "job_queue" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "job_queue_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"run_id" text NOT NULL,
	"kind" text NOT NULL,
	"step_id" text NOT NULL,
	"name" text,
	"attempt" integer DEFAULT 0 NOT NULL,
	"available_at" timestamp with time zone NOT NULL,
	"lease_token" text,
	"lease_until" timestamp with time zone,
	"ckey1" text,
	"climit1" integer,
	"ckey2" text,
	"climit2" integer
);
--> statement-breakpoint
CREATE TABLE "job_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"function_id" text NOT NULL,
	"event_id" text NOT NULL,
	"status" text NOT NULL,
	"attempt" integer DEFAULT 0 NOT NULL,
	"calls" integer DEFAULT 0 NOT NULL,
	"concurrency_keys" jsonb NOT NULL,
	"disable_immediate_execution" boolean DEFAULT false NOT NULL,
	"request_version" integer,
	"output" jsonb,
	"error" jsonb,
	"last_error" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"ended_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "job_steps" (
	"run_id" text NOT NULL,
	"step_id" text NOT NULL,
	"seq" integer NOT NULL,
	"name" text,
	"result" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "job_steps_run_id_step_id_pk" PRIMARY KEY("run_id","step_id")
);
--> statement-breakpoint
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boards" ADD CONSTRAINT "boards_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "boards" ADD CONSTRAINT "boards_parent_id_boards_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."boards"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "asset_boards" ADD CONSTRAINT "asset_boards_asset_id_assets_id_fk" FOREIGN KEY ("asset_id") REFERENCES "public"."assets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "asset_boards" ADD CONSTRAINT "asset_boards_board_id_boards_id_fk" FOREIGN KEY ("board_id") REFERENCES "public"."boards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "assets" ADD CONSTRAINT "assets_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "asset_versions" ADD CONSTRAINT "asset_versions_asset_id_assets_id_fk" FOREIGN KEY ("asset_id") REFERENCES "public"."assets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "upload_sessions" ADD CONSTRAINT "upload_sessions_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "triggers" ADD CONSTRAINT "triggers_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "triggers" ADD CONSTRAINT "triggers_board_id_boards_id_fk" FOREIGN KEY ("board_id") REFERENCES "public"."boards"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_trigger_id_triggers_id_fk" FOREIGN KEY ("trigger_id") REFERENCES "public"."triggers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_calls" ADD CONSTRAINT "job_calls_run_id_job_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."job_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_queue" ADD CONSTRAINT "job_queue_run_id_job_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."job_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_runs" ADD CONSTRAINT "job_runs_event_id_job_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."job_events"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "job_steps" ADD CONSTRAINT "job_steps_run_id_job_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."job_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "workspaces_slug_key" ON "workspaces" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "users_email_key" ON "users" USING btree ("email");--> statement-breakpoint
CREATE UNIQUE INDEX "api_tokens_hash_key" ON "api_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "api_tokens_workspace_idx" ON "api_tokens" USING btree ("workspace_id");--> statement-breakpoint
CREATE UNIQUE INDEX "boards_token_key" ON "boards" USING btree ("token");--> statement-breakpoint
CREATE INDEX "boards_workspace_parent_idx" ON "boards" USING btree ("workspace_id","parent_id");--> statement-breakpoint
CREATE INDEX "asset_boards_board_idx" ON "asset_boards" USING btree ("board_id");--> statement-breakpoint
CREATE UNIQUE INDEX "assets_token_key" ON "assets" USING btree ("token");--> statement-breakpoint
CREATE INDEX "assets_workspace_idx" ON "assets" USING btree ("workspace_id","id");--> statement-breakpoint
CREATE INDEX "assets_search_idx" ON "assets" USING gin ("search");--> statement-breakpoint
CREATE UNIQUE INDEX "asset_versions_number_key" ON "asset_versions" USING btree ("asset_id","version_number");--> statement-breakpoint
CREATE UNIQUE INDEX "upload_sessions_handle_key" ON "upload_sessions" USING btree ("handle");--> statement-breakpoint
CREATE INDEX "upload_sessions_status_idx" ON "upload_sessions" USING btree ("status","expires_at");--> statement-breakpoint
CREATE INDEX "triggers_board_hook_idx" ON "triggers" USING btree ("board_id","hook");--> statement-breakpoint
CREATE INDEX "triggers_workspace_idx" ON "triggers" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_trigger_idx" ON "webhook_deliveries" USING btree ("trigger_id","id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_message_idx" ON "webhook_deliveries" USING btree ("trigger_id","message_id");--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_keys_principal_key" ON "idempotency_keys" USING btree ("principal","key");--> statement-breakpoint
CREATE INDEX "job_calls_run_idx" ON "job_calls" USING btree ("run_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "job_events_dedupe_key" ON "job_events" USING btree ("dedupe_key");--> statement-breakpoint
CREATE INDEX "job_events_received_idx" ON "job_events" USING btree ("received_at");--> statement-breakpoint
CREATE INDEX "job_queue_available_idx" ON "job_queue" USING btree ("available_at","id");--> statement-breakpoint
CREATE INDEX "job_queue_run_idx" ON "job_queue" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "job_queue_ckey1_idx" ON "job_queue" USING btree ("ckey1") WHERE "job_queue"."lease_until" is not null;--> statement-breakpoint
CREATE INDEX "job_queue_ckey2_idx" ON "job_queue" USING btree ("ckey2") WHERE "job_queue"."lease_until" is not null;--> statement-breakpoint
CREATE INDEX "job_runs_created_idx" ON "job_runs" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "job_runs_status_idx" ON "job_runs" USING btree ("status","created_at");