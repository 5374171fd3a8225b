import { type AnyPgColumn, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./_columns";
import { workspaces } from "./workspaces";

export const BOARD_STATES = ["active", "archived", "read_only", "trashed"] as const;
export type BoardState = (typeof BOARD_STATES)[number];

export const boards = pgTable(
  "boards",
  {
    id: id(),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    token: text("token").notNull(),
    title: text("title").notNull(),
    parentId: integer("parent_id").references((): AnyPgColumn => boards.id, { onDelete: "restrict" }),
    state: text("state").$type<BoardState>().notNull().default("active"),
    /**
     * Materialised path: the ids of every ancestor, root first, as "/1/5/9/" ("/" at top level).
     * Subtree checks are one indexed prefix match instead of a recursive walk (lib/boards/tree.ts
     * owns it, including moves).
     */
    ancestry: text("ancestry").notNull().default("/"),
    /** Number of ancestors: 0 at top level, at most MAX_BOARD_DEPTH - 1. */
    depth: integer("depth").notNull().default(0),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("boards_token_key").on(t.token),
    index("boards_workspace_parent_idx").on(t.workspaceId, t.parentId),
    index("boards_workspace_ancestry_idx").on(t.workspaceId, t.ancestry.op("text_pattern_ops")),
  ],
);

export type Board = typeof boards.$inferSelect;
