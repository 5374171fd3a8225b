import { boolean, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id } from "./_columns";

/**
 * People who sign in to the web UI. `npm run easel -- admin create` makes an owner (every
 * workspace, every right); `user create` and accepted invitations make people whose rights come
 * only from their workspace memberships (contract §11).
 */
export const users = pgTable(
  "users",
  {
    id: id(),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    isOwner: boolean("is_owner").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("users_email_key").on(t.email)],
);

export type User = typeof users.$inferSelect;
