import { index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id } from "./_columns";
import { triggers } from "./triggers";

/** One row per delivery attempt; every attempt of one message shares its webhook-id (message_id). */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: id(),
    triggerId: text("trigger_id")
      .notNull()
      .references(() => triggers.id, { onDelete: "cascade" }),
    messageId: text("message_id").notNull(),
    event: text("event").notNull(),
    payload: jsonb("payload").notNull(),
    attempt: integer("attempt").notNull(),
    status: text("status").$type<"succeeded" | "failed">().notNull(),
    responseStatus: integer("response_status"),
    error: text("error"),
    durationMs: integer("duration_ms"),
    createdAt: createdAt(),
  },
  (t) => [
    index("webhook_deliveries_trigger_idx").on(t.triggerId, t.id),
    // Numbering the next attempt of a message (retries and resends share its webhook-id); unique,
    // so two attempts logged at once cannot take the same number (the loser numbers again).
    uniqueIndex("webhook_deliveries_message_attempt_idx").on(t.triggerId, t.messageId, t.attempt),
  ],
);

export type WebhookDelivery = typeof webhookDeliveries.$inferSelect;
