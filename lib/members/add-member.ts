import type { DbOrTx } from "../db";
import { memberships, type Membership, type Workspace, type WorkspaceRole } from "../db/schema";

/**
 * Makes a user a member of a workspace with `role`, or sets the role when they already are one
 * (one statement, so two adds at once leave one membership). The only writer of new memberships.
 */
export async function addMembership(db: DbOrTx, input: { workspace: Pick<Workspace, "id">; userId: number; role: WorkspaceRole; now: Date }): Promise<Membership> {
  const [row] = await db
    .insert(memberships)
    .values({ workspaceId: input.workspace.id, userId: input.userId, role: input.role, createdAt: input.now, updatedAt: input.now })
    .onConflictDoUpdate({ target: [memberships.workspaceId, memberships.userId], set: { role: input.role, updatedAt: input.now } })
    .returning();
  return row;
}
