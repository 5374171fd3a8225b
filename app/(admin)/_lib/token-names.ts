import { listApiTokens } from "@/lib/auth/manage-api-tokens";
import type { Db } from "@/lib/db";
import type { Workspace } from "@/lib/db/schema";

/**
 * The names of the workspace's API tokens by the prefix that versions record as their creator
 * (`created_by_token`), so the timeline says "token “website build”" rather than "easel_ab12". A
 * prefix two tokens share names neither: the timeline then shows the prefix itself.
 */
export async function tokenNamesByPrefix(db: Db, workspace: Workspace): Promise<Record<string, string>> {
  const names: Record<string, string> = {};
  const shared = new Set<string>();
  for (const t of await listApiTokens(db, workspace)) {
    if (t.prefix in names) shared.add(t.prefix);
    names[t.prefix] = t.name;
  }
  for (const prefix of shared) delete names[prefix];
  return names;
}
