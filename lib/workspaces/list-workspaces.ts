import { asc } from "drizzle-orm";
import type { Db } from "../db";
import { workspaces } from "../db/schema";
import { toWorkspaceJson, type WorkspaceJson } from "./present";

/** Every workspace, by slug: a signed-in admin of the web UI acts in all of them. */
export async function listWorkspaces(db: Db): Promise<WorkspaceJson[]> {
  const rows = await db.select().from(workspaces).orderBy(asc(workspaces.slug));
  return rows.map(toWorkspaceJson);
}
