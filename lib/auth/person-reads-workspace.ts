import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { memberships, users } from "../db/schema";

/**
 * Whether a person may still read a workspace now: they exist and are an owner or hold any role
 * there (every role reads, contract §11). One statement over the users primary key and the
 * memberships (workspace, user) unique index, for the board access tokens pages mint for people.
 */
export async function personReadsWorkspace(db: DbOrTx, userId: number, workspaceId: number): Promise<boolean> {
  const [row] = await db
    .select({ owner: users.isOwner, role: memberships.role })
    .from(users)
    .leftJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.workspaceId, workspaceId)))
    .where(eq(users.id, userId))
    .limit(1);
  return row !== undefined && (row.owner || row.role !== null);
}
