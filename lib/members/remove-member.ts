import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { memberships, type Workspace } from "../db/schema";
import { announceAccessEnded } from "../live/announce";

/**
 * Ends a membership; answers whether there was one. Sessions are authorized from the database on
 * every request, so the removed member's open sessions lose the workspace on their next request,
 * and their open live-update streams of it end at once (at commit, when `db` is a transaction).
 */
export async function removeMembership(db: DbOrTx, input: { workspace: Pick<Workspace, "id">; userId: number }): Promise<boolean> {
  const rows = await db
    .delete(memberships)
    .where(and(eq(memberships.workspaceId, input.workspace.id), eq(memberships.userId, input.userId)))
    .returning({ id: memberships.id });
  if (rows.length === 0) return false;
  await announceAccessEnded(db, input.workspace.id, input.userId);
  return true;
}
