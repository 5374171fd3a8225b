import { findUserByEmail } from "../auth/users";
import type { Db } from "../db";
import type { User, Workspace, WorkspaceRole } from "../db/schema";
import { DomainError } from "../errors";
import { addMembership } from "./add-member";
import { removeMembership } from "./remove-member";

/** The user of an email, or 422 validation_failed (field email) when nobody has that email. */
export async function userByEmailOrThrow(db: Db, email: string): Promise<User> {
  const user = await findUserByEmail(db, email);
  if (!user) throw new DomainError("validation_failed", `no user has the email "${email}" (create one with: user create <email> <password>)`, { field: "email" });
  return user;
}

/** `member add <slug> <email> --role R`: the user must exist already; a lower role on an admin revokes what they made. */
export async function addMemberByEmail(db: Db, input: { workspace: Workspace; email: string; role: WorkspaceRole; now: Date }) {
  const user = await userByEmailOrThrow(db, input.email);
  const { revoked } = await addMembership(db, { workspace: input.workspace, userId: user.id, role: input.role, now: input.now });
  return { user, revoked };
}

/** `member remove <slug> <email>`: 422 when the email is unknown or not a member of the workspace. */
export async function removeMemberByEmail(db: Db, input: { workspace: Workspace; email: string; now: Date }) {
  const user = await userByEmailOrThrow(db, input.email);
  const removed = await removeMembership(db, { workspace: input.workspace, userId: user.id, now: input.now });
  if (!removed) throw new DomainError("validation_failed", `${user.email} is not a member of ${input.workspace.slug}`, { field: "email" });
  return { user, revoked: removed.revoked };
}
