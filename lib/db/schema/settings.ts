import { pgTable, text } from "drizzle-orm/pg-core";
import { createdAt } from "./_columns";

/**
 * Instance-wide generated secrets (signing keys), kept in the database so that every app node on
 * one Postgres signs and verifies with the same keys.
 */
export const settings = pgTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  createdAt: createdAt(),
});
