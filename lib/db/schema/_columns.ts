import { integer, timestamp } from "drizzle-orm/pg-core";

/** Integer identity primary key: assets expose it in webhook payloads as `id` (an integer). */
export const id = () => integer("id").primaryKey().generatedAlwaysAsIdentity();

/** Timestamps are always written by the application clock (lib/clock), never by `now()`, so the test clock moves them too. */
export const createdAt = () => timestamp("created_at", { withTimezone: true, mode: "date" }).notNull();
export const updatedAt = () => timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull();
