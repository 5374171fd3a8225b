import { sql, type SQL } from "drizzle-orm";
import { users } from "../db/schema";
import type { CreatorJson } from "../openapi/schemas/members";

/**
 * Who made an API token or an invitation, as their lists show it: null when nobody is recorded
 * (made by the CLI, or before Easel recorded it), which the UI shows as "unknown".
 */
export type { CreatorJson };

/** The columns to left-join from `users` on a `created_by` column. */
export const creatorColumns = { creatorId: users.id, creatorEmail: users.email };

export function toCreatorJson(row: { creatorId: number | null; creatorEmail: string | null }): CreatorJson {
  return row.creatorId !== null && row.creatorEmail !== null ? { user_id: row.creatorId, email: row.creatorEmail } : null;
}

/**
 * True while `userId` may still issue tokens and invitations in the workspace: an owner, or a
 * member with the admin role. The issuing INSERT carries it, so a request authorized a moment
 * before its maker was removed or demoted writes nothing; `for share` makes a removal that
 * started first finish first, after which the row is gone and the check fails.
 */
export function issuerIsAdmin(workspaceId: number, userId: number): SQL {
  return sql`(exists (select 1 from users u where u.id = ${userId} and u.is_owner)
    or exists (select 1 from workspace_memberships m
      where m.workspace_id = ${workspaceId} and m.user_id = ${userId} and m.role = 'admin' for share))`;
}
