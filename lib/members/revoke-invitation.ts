import { and, eq, isNull } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { invitations, type Workspace } from "../db/schema";

/** Revokes a pending invitation of the workspace; answers whether one was revoked (a used or revoked one is left as it is). */
export async function revokeInvitation(db: DbOrTx, input: { workspace: Pick<Workspace, "id">; id: number; now: Date }): Promise<boolean> {
  const rows = await db
    .update(invitations)
    .set({ revokedAt: input.now })
    .where(and(eq(invitations.id, input.id), eq(invitations.workspaceId, input.workspace.id), isNull(invitations.usedAt), isNull(invitations.revokedAt)))
    .returning({ id: invitations.id });
  return rows.length > 0;
}
