import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id } from "./_columns";
import { users } from "./users";
import { workspaces } from "./workspaces";

export const SCOPES = ["read", "write"] as const;
export type Scope = (typeof SCOPES)[number];

/** API tokens are stored only as a SHA-256 hash; the clear token is printed once at creation. */
export const apiTokens = pgTable(
  "api_tokens",
  {
    id: id(),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull(),
    /** First characters of the token, safe to show in lists ("easel_ab12…"). */
    tokenPrefix: text("token_prefix").notNull(),
    scopes: text("scopes").array().$type<Scope[]>().notNull(),
    webhooks: boolean("webhooks").notNull().default(false),
    /**
     * The person who issued it from the web UI; null for tokens from the CLI (the operator) and for
     * tokens older than this column. Removing or demoting that person revokes it (lib/members).
     */
    createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
  },
  (t) => [
    uniqueIndex("api_tokens_hash_key").on(t.tokenHash),
    index("api_tokens_workspace_idx").on(t.workspaceId),
    index("api_tokens_workspace_created_by_idx").on(t.workspaceId, t.createdBy),
  ],
);

export type ApiToken = typeof apiTokens.$inferSelect;
