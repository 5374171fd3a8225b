import { and, eq, sql } from "drizzle-orm";
import { issuerIsAdmin } from "../auth/creator";
import { insufficientRole } from "../auth/roles";
import { checkEmail } from "../auth/users";
import { queryRows, type Db } from "../db";
import { invitations, memberships, users, type Invitation, type Workspace, type WorkspaceRole } from "../db/schema";
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
  const values = {
    workspaceId: input.workspace.id,
    email,
    role: input.role,
    tokenHash: hashInvitationToken(token),
    expiresAt: new Date(input.now.getTime() + INVITATION_LIFETIME_MS),
    createdBy: input.createdBy,
    createdAt: input.now,
  };
  const row = input.createdBy === null ? (await db.insert(invitations).values(values).returning())[0] : await insertWhileAdmin(db, values, input.createdBy);
  // Authorized at the start of the request, removed or demoted before the row was written.
  if (!row) throw insufficientRole("manage");
  const [creator] = input.createdBy === null ? [] : await db.select({ email: users.email }).from(users).where(eq(users.id, input.createdBy));
  return { invitation: toInvitationJson(row, creator ? { user_id: input.createdBy as number, email: creator.email } : null), token };
}

/** The invitation row, written only while its maker is an owner or an admin of the workspace (issuerIsAdmin). */
async function insertWhileAdmin(db: Db, v: typeof invitations.$inferInsert & { expiresAt: Date; createdAt: Date }, createdBy: number): Promise<Invitation | undefined> {
  const [inserted] = await queryRows<{ id: number }>(
    db,
    sql`insert into workspace_invitations (workspace_id, email, role, token_hash, expires_at, created_by, created_at)
      select ${v.workspaceId}, ${v.email}, ${v.role}, ${v.tokenHash}, ${v.expiresAt.toISOString()}::timestamptz, ${createdBy}, ${v.createdAt.toISOString()}::timestamptz
      where ${issuerIsAdmin(v.workspaceId, createdBy)}
      returning id`,
  );
  if (!inserted) return undefined;
  const [row] = await db.select().from(invitations).where(eq(invitations.id, Number(inserted.id)));
  return row;
}
