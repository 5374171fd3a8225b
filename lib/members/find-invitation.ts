import { eq } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { invitations, users, workspaces, type Invitation, type WorkspaceRole } from "../db/schema";
import { hashInvitationToken, looksLikeInvitationToken } from "./invitation-token";

export type InvitationState = "pending" | "expired" | "revoked" | "used";

/** What an invitation link shows before it is accepted. */
export type InvitationView = {
  state: InvitationState;
  email: string;
  role: WorkspaceRole;
  workspace: { slug: string; name: string };
  /** The invited email has an account: they sign in to accept instead of setting a password. */
  existingUser: boolean;
};

export function invitationState(row: Pick<Invitation, "usedAt" | "revokedAt" | "expiresAt">, now: Date): InvitationState {
  if (row.usedAt) return "used";
  if (row.revokedAt) return "revoked";
  if (row.expiresAt.getTime() <= now.getTime()) return "expired";
  return "pending";
}

/** The invitation of a link's token, or null when no invitation has that token. */
export async function findInvitation(db: DbOrTx, token: string, now: Date): Promise<InvitationView | null> {
  if (!looksLikeInvitationToken(token)) return null;
  const [row] = await db
    .select({ invitation: invitations, slug: workspaces.slug, name: workspaces.name, userId: users.id })
    .from(invitations)
    .innerJoin(workspaces, eq(workspaces.id, invitations.workspaceId))
    .leftJoin(users, eq(users.email, invitations.email))
    .where(eq(invitations.tokenHash, hashInvitationToken(token)))
    .limit(1);
  if (!row) return null;
  const inv = row.invitation;
  return { state: invitationState(inv, now), email: inv.email, role: inv.role, workspace: { slug: row.slug, name: row.name }, existingUser: row.userId !== null };
}
