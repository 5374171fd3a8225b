import { index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, id, updatedAt } from "./_columns";
import { users } from "./users";
import { workspaces } from "./workspaces";

/** A member's one role in a workspace (contract §11), weakest first. */
export const WORKSPACE_ROLES = ["viewer", "editor", "admin"] as const;
export type WorkspaceRole = (typeof WORKSPACE_ROLES)[number];

/** Who, besides owners, may act in a workspace, and with which role. Lifecycle: lib/members. */
export const memberships = pgTable(
  "workspace_memberships",
  {
    id: id(),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    role: text("role").$type<WorkspaceRole>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("workspace_memberships_workspace_user_key").on(t.workspaceId, t.userId), index("workspace_memberships_user_idx").on(t.userId)],
);

export type Membership = typeof memberships.$inferSelect;

/**
 * An admin's invitation to join a workspace with a role. Only the SHA-256 of the link's token is
 * stored; the link is shown once. Used at most once (`used_at`), refused once revoked or past
 * `expires_at`. Lifecycle: lib/members.
 */
export const invitations = pgTable(
  "workspace_invitations",
  {
    id: id(),
    workspaceId: integer("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role").$type<WorkspaceRole>().notNull(),
    tokenHash: text("token_hash").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
    createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("workspace_invitations_token_hash_key").on(t.tokenHash), index("workspace_invitations_workspace_idx").on(t.workspaceId)],
);

export type Invitation = typeof invitations.$inferSelect;
