import { and, count, eq, gt, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { apiTokens, invitations, triggers, users } from "../db/schema";

import type { AccessMadeJson } from "../openapi/schemas/members";

/** Live API tokens, pending invitations and webhook triggers one person made in one workspace. */
export type AccessMade = AccessMadeJson;

export const NOTHING_MADE: AccessMade = { api_tokens: 0, invitations: 0, webhook_triggers: 0 };

/**
 * The end of a statement that changed memberships: given a CTE `subject(workspace_id, user_id)`
 * of the people who lost the admin role in a workspace, it revokes the API tokens and pending
 * invitations each made there, disables the webhook triggers each made there (signed in, or
 * through an API token they made), and selects the counts (`api_tokens`, `invitations`,
 * `webhook_triggers`) beside `extra`. All are admin powers: left alive, a token would keep
 * writing, an invitation would keep making admins, and a trigger would keep sending the
 * workspace's changes to a URL of their choosing, for someone who may no longer do any of it.
 * A trigger is disabled, not deleted: another admin may renew it and so take it over.
 *
 * One statement with the membership change, not a transaction around several: the CLI reaches
 * the embedded database through the server's socket, where an open transaction would hold the
 * server's only session, and one statement is atomic on its own on both databases.
 */
export function revokeMadeBySubject(now: Date, extra: SQL): SQL {
  const at = now.toISOString();
  return sql`,
    revoked_tokens as (
      update api_tokens t set revoked_at = ${at}::timestamptz
      from subject s
      where t.workspace_id = s.workspace_id and t.created_by = s.user_id and t.revoked_at is null
      returning t.id),
    revoked_invitations as (
      update workspace_invitations i set revoked_at = ${at}::timestamptz
      from subject s
      where i.workspace_id = s.workspace_id and i.created_by = s.user_id
        and i.used_at is null and i.revoked_at is null and i.expires_at > ${at}::timestamptz
      returning i.id),
    disabled_triggers as (
      update triggers g set disabled_at = ${at}::timestamptz, disabled_reason = 'maker_lost_access'
      from subject s
      where g.workspace_id = s.workspace_id and g.deleted_at is null and g.disabled_at is null and ${TRIGGER_MADE_BY_SUBJECT}
      returning g.id)
    select ${extra},
      (select count(*) from revoked_tokens)::int as api_tokens,
      (select count(*) from revoked_invitations)::int as invitations,
      (select count(*) from disabled_triggers)::int as webhook_triggers`;
}

/**
 * A trigger `g` made by subject `s`: recorded as theirs, or, when no maker is recorded (made by a
 * release before the column, during a rolling upgrade), made with an API token they made.
 */
const TRIGGER_MADE_BY_SUBJECT = sql`coalesce(g.created_by, (select k.created_by from api_tokens k where k.id = g.created_by_token_id)) = s.user_id`;

/** An owner keeps what they made: their rights come from being an owner, not from a membership. */
export const NOT_AN_OWNER = sql`not exists (select 1 from users u where u.id = c.user_id and u.is_owner)`;

/**
 * What a removal or a role below admin would revoke now, for each of the given people (the
 * members page and the CLI say it before). Owners, and people who made nothing, count zero.
 */
export async function countAccessMadeBy(db: DbOrTx, input: { workspaceId: number; userIds: number[]; now: Date }): Promise<Map<number, AccessMade>> {
  const counts = new Map<number, AccessMade>(input.userIds.map((id) => [id, { ...NOTHING_MADE }]));
  if (input.userIds.length === 0) return counts;
  const owners = await db.select({ id: users.id }).from(users).where(and(inArray(users.id, input.userIds), eq(users.isOwner, true)));
  const people = input.userIds.filter((id) => !owners.some((o) => o.id === id));
  if (people.length === 0) return counts;
  const tokens = await db
    .select({ userId: apiTokens.createdBy, n: count() })
    .from(apiTokens)
    .where(and(eq(apiTokens.workspaceId, input.workspaceId), inArray(apiTokens.createdBy, people), isNull(apiTokens.revokedAt)))
    .groupBy(apiTokens.createdBy);
  const invited = await db
    .select({ userId: invitations.createdBy, n: count() })
    .from(invitations)
    .where(
      and(
        eq(invitations.workspaceId, input.workspaceId),
        inArray(invitations.createdBy, people),
        isNull(invitations.usedAt),
        isNull(invitations.revokedAt),
        gt(invitations.expiresAt, input.now),
      ),
    )
    .groupBy(invitations.createdBy);
  // The maker as TRIGGER_MADE_BY_SUBJECT reads it.
  const maker = sql<number | null>`coalesce(${triggers.createdBy}, ${apiTokens.createdBy})`;
  const hooks = await db
    .select({ userId: maker, n: count() })
    .from(triggers)
    .leftJoin(apiTokens, eq(apiTokens.id, triggers.createdByTokenId))
    .where(and(eq(triggers.workspaceId, input.workspaceId), inArray(maker, people), isNull(triggers.deletedAt), isNull(triggers.disabledAt)))
    .groupBy(maker);
  for (const t of tokens) {
    const c = t.userId === null ? undefined : counts.get(t.userId);
    if (c) c.api_tokens = Number(t.n);
  }
  for (const i of invited) {
    const c = i.userId === null ? undefined : counts.get(i.userId);
    if (c) c.invitations = Number(i.n);
  }
  for (const h of hooks) {
    const c = h.userId === null ? undefined : counts.get(Number(h.userId));
    if (c) c.webhook_triggers = Number(h.n);
  }
  return counts;
}
