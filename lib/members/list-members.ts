import { asc, eq } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { memberships, users, type Workspace, type WorkspaceRole } from "../db/schema";

export type MemberJson = { user_id: number; email: string; role: WorkspaceRole; created_at: string };

/** A workspace's members, by email (owners are not listed: they are in every workspace). */
export async function listMembers(db: DbOrTx, workspace: Pick<Workspace, "id">): Promise<MemberJson[]> {
  const rows = await db
    .select({ userId: users.id, email: users.email, role: memberships.role, createdAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.workspaceId, workspace.id))
    .orderBy(asc(users.email));
  return rows.map((r) => ({ user_id: r.userId, email: r.email, role: r.role, created_at: r.createdAt.toISOString() }));
}
