import { index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * The transactional outbox (lib/jobs/outbox): every job event a write produces is inserted here in
 * the write's own transaction, and handed on to the job system after the commit. A row exists
 * until its event was handed on; then it is deleted. Times are the database's clock (`now()`),
 * shared by every node, not the application clock: they schedule retries, they are not data.
 */
export const eventOutbox = pgTable(
  "event_outbox",
  {
    /** A ULID: sorts by creation, and is the event's id at the job system (a resend starts nothing new). */
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    /** No hand-off is tried before this (a retry's backoff). */
    availableAt: ts("available_at").notNull().defaultNow(),
    /** While in the future, one relay is handing the row on and no other takes it. */
    leasedUntil: ts("leased_until"),
    /** Hand-offs tried and failed. */
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
  },
  (t) => [index("event_outbox_available_idx").on(t.availableAt)],
);

export type EventOutboxRow = typeof eventOutbox.$inferSelect;
