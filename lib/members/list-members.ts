import { asc, eq } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { memberships, users, type Workspace } from "../db/schema";
import type { MemberJson } from "../openapi/schemas/members";
import { countAccessMadeBy } from "./access-made-by";

/** `made`: the live API tokens and pending invitations they made here, what removing them or a role below admin revokes. */
export type { MemberJson };

/** A workspace's members, by email (owners are not listed: they are in every workspace). */
export async function listMembers(db: DbOrTx, workspace: Pick<Workspace, "id">, now: Date): Promise<MemberJson[]> {
  const rows = await db
    .select({ userId: users.id, email: users.email, role: memberships.role, createdAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.workspaceId, workspace.id))
    .orderBy(asc(users.email));
  const made = await countAccessMadeBy(db, { workspaceId: workspace.id, userIds: rows.map((r) => r.userId), now });
  return rows.map((r) => ({ user_id: r.userId, email: r.email, role: r.role, created_at: r.createdAt.toISOString(), made: made.get(r.userId)! }));
}
