import { and, asc, eq, gt, isNull } from "drizzle-orm";
import { creatorColumns, toCreatorJson } from "../auth/creator";
import type { DbOrTx } from "../db";
import { invitations, users, type Workspace } from "../db/schema";
import { toInvitationJson, type InvitationJson } from "./present";

/** Invitations that can still be accepted: not used, not revoked, not expired (by the project's clock), with who made each. */
export async function listPendingInvitations(db: DbOrTx, workspace: Pick<Workspace, "id">, now: Date): Promise<InvitationJson[]> {
  const rows = await db
    .select({ invitation: invitations, ...creatorColumns })
    .from(invitations)
    .leftJoin(users, eq(users.id, invitations.createdBy))
    .where(and(eq(invitations.workspaceId, workspace.id), isNull(invitations.usedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)))
    .orderBy(asc(invitations.createdAt), asc(invitations.id));
  return rows.map(({ invitation, ...creator }) => toInvitationJson(invitation, toCreatorJson(creator)));
}
