import { and, asc, eq, gt, isNull } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { invitations, type Workspace } from "../db/schema";
import { toInvitationJson, type InvitationJson } from "./present";

/** Invitations that can still be accepted: not used, not revoked, not expired (by the project's clock). */
export async function listPendingInvitations(db: DbOrTx, workspace: Pick<Workspace, "id">, now: Date): Promise<InvitationJson[]> {
  const rows = await db
    .select()
    .from(invitations)
    .where(and(eq(invitations.workspaceId, workspace.id), isNull(invitations.usedAt), isNull(invitations.revokedAt), gt(invitations.expiresAt, now)))
    .orderBy(asc(invitations.createdAt), asc(invitations.id));
  return rows.map(toInvitationJson);
}
