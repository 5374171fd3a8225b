ALTER TABLE "assets" ADD COLUMN "encode_progress" jsonb;--> statement-breakpoint
ALTER TABLE "assets" ADD COLUMN "storyboard_key" text;