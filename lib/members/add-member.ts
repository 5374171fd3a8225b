import { sql } from "drizzle-orm";
import { queryRows, type DbOrTx } from "../db";
import type { Workspace, WorkspaceRole } from "../db/schema";
import { revokeMadeBySubject, type AccessMade } from "./access-made-by";
import { BELOW_ADMIN, type RoleChange } from "./change-role";

/**
 * Makes a user a member of a workspace with `role`, or sets the role when they already are one
 * (one statement, so two adds at once leave one membership). The only writer of new memberships.
 * A role below admin revokes what the person made, as changeMemberRole does, in the same statement.
 */
export async function addMembership(db: DbOrTx, input: { workspace: Pick<Workspace, "id">; userId: number; role: WorkspaceRole; now: Date }): Promise<RoleChange> {
  const at = input.now.toISOString();
  const [row] = await queryRows<{ role: WorkspaceRole } & AccessMade>(
    db,
    sql`with c as (
        insert into workspace_memberships (workspace_id, user_id, role, created_at, updated_at)
        values (${input.workspace.id}, ${input.userId}, ${input.role}, ${at}::timestamptz, ${at}::timestamptz)
        on conflict (workspace_id, user_id) do update set role = excluded.role, updated_at = excluded.updated_at
        returning workspace_id, user_id, role),
      ${BELOW_ADMIN}${revokeMadeBySubject(input.now, sql`(select role from c) as role`)}`,
  );
  return { userId: input.userId, role: row.role, revoked: { api_tokens: row.api_tokens, invitations: row.invitations, webhook_triggers: row.webhook_triggers } };
}
