import { integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The rate-limit counters shared by every app node on one PostgreSQL (lib/http/rate-limit-store.ts):
 * one row per bucket (`api:<token id>`, `board:<jti>`, `user:<id>`, `ip:<client address>`) holding
 * its current one-minute window. Times are the database's clock, the one clock every node shares.
 *
 * UNLOGGED (edited into migration 0006: drizzle-kit cannot express it): each request rewrites a
 * row, and counters are not data worth a WAL record. A crash or a failover to a standby empties
 * the table, which at worst gives every bucket a fresh minute. Rows of windows that ended are
 * deleted by the counter's sweep; the table holds only the buckets of the last minutes.
 */
export const rateLimitWindows = pgTable("rate_limit_windows", {
  bucket: text("bucket").primaryKey(),
  windowStart: timestamp("window_start", { withTimezone: true, mode: "date" }).notNull(),
  count: integer("count").notNull(),
});
