import { integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id } from "./_columns";

/** First response to a POST with an Idempotency-Key, replayed for 24 h to the same caller. */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    id: id(),
    /** Who sent it: "api:<token id>" or "user:<id>"; keys of different callers never collide. */
    principal: text("principal").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    /** null while the first request is still being answered. */
    responseStatus: integer("response_status"),
    responseBody: jsonb("response_body"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("idempotency_keys_principal_key").on(t.principal, t.key)],
);
