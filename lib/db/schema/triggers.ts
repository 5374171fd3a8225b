import { index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { createdAt } from "./_columns";
import { boards } from "./boards";
import { users } from "./users";
import { workspaces } from "./workspaces";

export const HOOKS = ["asset_added", "asset_updated", "asset_deleted"] as const;
export type Hook = (typeof HOOKS)[number];

/** Why a trigger stopped delivering; a renewal by an admin clears it. */
export const TRIGGER_DISABLED_REASONS = ["receiver_gone", "maker_lost_access"] as const;
export type TriggerDisabledReason = (typeof TRIGGER_DISABLED_REASONS)[number];

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
    /**
     * The person whose authority made it: the signed-in admin, or the maker of the API token used.
     * When they lose the admin role in the workspace the trigger is disabled (lib/members/access-made-by.ts).
     */
    createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
    expirationDate: timestamp("expiration_date", { withTimezone: true, mode: "date" }).notNull(),
    createdAt: createdAt(),
    deletedAt: timestamp("deleted_at", { withTimezone: true, mode: "date" }),
    /** Set when deliveries stop until an admin renews the trigger: its receiver answered 410 Gone, or its maker lost access. */
    disabledAt: timestamp("disabled_at", { withTimezone: true, mode: "date" }),
    /** Why disabled_at is set; null with disabled_at set means receiver_gone (written by releases before the column). */
    disabledReason: text("disabled_reason").$type<TriggerDisabledReason>(),
  },
  (t) => [index("triggers_board_hook_idx").on(t.boardId, t.hook), index("triggers_workspace_idx").on(t.workspaceId, t.createdAt)],
);

export type Trigger = typeof triggers.$inferSelect;
