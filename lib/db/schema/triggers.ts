import { index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { createdAt } from "./_columns";
import { boards } from "./boards";
import { workspaces } from "./workspaces";

export const HOOKS = ["asset_added", "asset_updated", "asset_deleted"] as const;
export type Hook = (typeof HOOKS)[number];

/** A webhook registration on a board (and its sub-boards). */
export const triggers = pgTable(
  "triggers",
  {
    id: text("id").primaryKey(),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    boardId: integer("board_id")
      .notNull()
      .references(() => boards.id, { onDelete: "cascade" }),
    hook: text("hook").$type<Hook>().notNull(),
    hookUrl: text("hook_url").notNull(),
    secret: text("secret").notNull(),
    createdByTokenId: integer("created_by_token_id"),
    expirationDate: timestamp("expiration_date", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: createdAt(),
    deletedAt: timestamp("deleted_at", { withTimezone: true, mode: "date" }),
    /** Set when a receiver answered 410 Gone: no more deliveries until the trigger is renewed. */
    disabledAt: timestamp("disabled_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [index("triggers_board_hook_idx").on(t.boardId, t.hook), index("triggers_workspace_idx").on(t.workspaceId, t.createdAt)],
);

export type Trigger = typeof triggers.$inferSelect;
