import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { memberships, type Workspace } from "../db/schema";

/**
 * Ends a membership; answers whether there was one. Sessions are authorized from the database on
 * every request, so the removed member's open sessions lose the workspace on their next request.
 */
export async function removeMembership(db: DbOrTx, input: { workspace: Pick<Workspace, "id">; userId: number }): Promise<boolean> {
  const rows = await db
    .delete(memberships)
    .where(and(eq(memberships.workspaceId, input.workspace.id), eq(memberships.userId, input.userId)))
    .returning({ id: memberships.id });
  return rows.length > 0;
}
