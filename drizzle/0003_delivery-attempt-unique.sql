-- Attempts logged at the same moment could share a number before this index: renumber each message's attempts in the order they were logged first.
UPDATE "webhook_deliveries" AS d SET "attempt" = r.n FROM (SELECT "id", row_number() OVER (PARTITION BY "trigger_id", "message_id" ORDER BY "id") AS n FROM "webhook_deliveries") AS r WHERE d."id" = r."id" AND d."attempt" <> r.n;--> statement-breakpoint
DROP INDEX "webhook_deliveries_message_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_message_attempt_idx" ON "webhook_deliveries" USING btree ("trigger_id","message_id","attempt");
