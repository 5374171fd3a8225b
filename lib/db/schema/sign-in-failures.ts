import { index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * One row per failed sign-in, for the throttle (contract §12): `subject` is `email:<address>` or
 * `ip:<client address>`. In the database, not in memory, so the limit holds across app nodes.
 * Rows older than the window are deleted by the throttle itself.
 */
export const signInFailures = pgTable(
  "sign_in_failures",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    subject: text("subject").notNull(),
    failedAt: timestamp("failed_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (t) => [index("sign_in_failures_subject_idx").on(t.subject, t.failedAt)],
);
