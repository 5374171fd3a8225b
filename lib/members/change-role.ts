import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { memberships, type Membership, type Workspace, type WorkspaceRole } from "../db/schema";

/** Sets an existing member's role (null when they are not a member); takes effect on their next request. */
export async function changeMemberRole(db: DbOrTx, input: { workspace: Pick<Workspace, "id">; userId: number; role: WorkspaceRole; now: Date }): Promise<Membership | null> {
  const [row] = await db
    .update(memberships)
    .set({ role: input.role, updatedAt: input.now })
    .where(and(eq(memberships.workspaceId, input.workspace.id), eq(memberships.userId, input.userId)))
    .returning();
  return row ?? null;
}
