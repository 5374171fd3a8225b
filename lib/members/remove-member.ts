import { sql } from "drizzle-orm";
import { queryRows, type DbOrTx } from "../db";
import type { Workspace } from "../db/schema";
import { announceAccessEnded } from "../live/announce";
import { NOT_AN_OWNER, revokeMadeBySubject, type AccessMade } from "./access-made-by";

export type RemovedMember = { revoked: AccessMade };

/**
 * Ends a membership; null when there was none. The same statement revokes the API tokens and
 * pending invitations the person made in the workspace (access-made-by.ts). Sessions are
 * authorized from the database on every request, so the removed member's open sessions lose the
 * workspace on their next request, and their open live-update streams of it end at once (at
 * commit, when `db` is a transaction).
 */
export async function removeMembership(db: DbOrTx, input: { workspace: Pick<Workspace, "id">; userId: number; now: Date }): Promise<RemovedMember | null> {
  const [row] = await queryRows<{ removed: number } & AccessMade>(
    db,
    sql`with removed as (
        delete from workspace_memberships where workspace_id = ${input.workspace.id} and user_id = ${input.userId}
        returning workspace_id, user_id),
      subject as (select c.workspace_id, c.user_id from removed c where ${NOT_AN_OWNER})${revokeMadeBySubject(input.now, sql`(select count(*) from removed)::int as removed`)}`,
  );
  if (!row || row.removed === 0) return null;
  await announceAccessEnded(db, input.workspace.id, input.userId);
  return { revoked: { api_tokens: row.api_tokens, invitations: row.invitations, webhook_triggers: row.webhook_triggers } };
}
