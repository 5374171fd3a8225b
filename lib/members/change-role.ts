import { sql } from "drizzle-orm";
import { queryRows, type DbOrTx } from "../db";
import type { Workspace, WorkspaceRole } from "../db/schema";
import { announceAccessEnded } from "../live/announce";
import { NOT_AN_OWNER, revokeMadeBySubject, type AccessMade } from "./access-made-by";

export type RoleChange = { userId: number; role: WorkspaceRole; revoked: AccessMade };

/**
 * The people of CTE `c` whose role is now below admin: what they made is revoked with the role
 * write. Checked on every write of a lower role, not only on the step down from admin, so nothing
 * made under an earlier admin role outlives it.
 */
export const BELOW_ADMIN = sql`subject as (select c.workspace_id, c.user_id from c where c.role <> 'admin' and ${NOT_AN_OWNER})`;

/**
 * Sets an existing member's role (null when they are not a member); takes effect on their next
 * request. Their open live streams of the workspace end too: a stream filters what it sends by the
 * role it was opened with (deliveries reach admins only), so the browser reconnects under the new one.
 */
export async function changeMemberRole(db: DbOrTx, input: { workspace: Pick<Workspace, "id">; userId: number; role: WorkspaceRole; now: Date }): Promise<RoleChange | null> {
  const [row] = await queryRows<{ role: WorkspaceRole } & AccessMade>(
    db,
    sql`with c as (
        update workspace_memberships set role = ${input.role}, updated_at = ${input.now.toISOString()}::timestamptz
        where workspace_id = ${input.workspace.id} and user_id = ${input.userId}
        returning workspace_id, user_id, role),
      ${BELOW_ADMIN}${revokeMadeBySubject(input.now, sql`(select role from c) as role`)}`,
  );
  if (!row?.role) return null;
  await announceAccessEnded(db, input.workspace.id, input.userId);
  return { userId: input.userId, role: row.role, revoked: { api_tokens: row.api_tokens, invitations: row.invitations, webhook_triggers: row.webhook_triggers } };
}
