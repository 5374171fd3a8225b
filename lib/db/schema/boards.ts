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
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("boards_token_key").on(t.token),
    index("boards_workspace_parent_idx").on(t.workspaceId, t.parentId),
  ],
);

export type Board = typeof boards.$inferSelect;
