import { and, eq } from "drizzle-orm";
import { checkEmail } from "../auth/users";
import type { Db } from "../db";
import { invitations, memberships, users, type Workspace, type WorkspaceRole } from "../db/schema";
import { DomainError } from "../errors";
import { hashInvitationToken, INVITATION_LIFETIME_MS, newInvitationToken } from "./invitation-token";
import { toInvitationJson, type InvitationJson } from "./present";

export type CreatedInvitation = { invitation: InvitationJson; token: string };

/**
 * Invites an email to a workspace with a role, valid for 7 days from the project's clock. The
 * clear token is in this answer only (the UI turns it into the link to copy); the table keeps its
 * hash. Someone who is a member already is refused: change their role instead.
 */
export async function createInvitation(db: Db, input: { workspace: Workspace; email: string; role: WorkspaceRole; createdBy: number | null; now: Date }): Promise<CreatedInvitation> {
  const email = checkEmail(input.email);
  const [member] = await db
    .select({ id: memberships.id })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.workspaceId, input.workspace.id), eq(users.email, email)))
    .limit(1);
  if (member) throw new DomainError("validation_failed", `${email} is a member of this workspace already: change their role instead`, { field: "email" });
  const token = newInvitationToken();
  const [row] = await db
    .insert(invitations)
    .values({
      workspaceId: input.workspace.id,
      email,
      role: input.role,
      tokenHash: hashInvitationToken(token),
      expiresAt: new Date(input.now.getTime() + INVITATION_LIFETIME_MS),
      createdBy: input.createdBy,
      createdAt: input.now,
    })
    .returning();
  const [creator] = input.createdBy === null ? [] : await db.select({ email: users.email }).from(users).where(eq(users.id, input.createdBy));
  return { invitation: toInvitationJson(row, creator ? { user_id: input.createdBy as number, email: creator.email } : null), token };
}
