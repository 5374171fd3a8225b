import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../lib/db";

type Row = { id: number; ancestry: string; depth: number };

/**
 * Every board of a workspace whose stored path differs from the one its parent links give, found by
 * an independent recursive walk (the way paths were computed before they were stored). Empty when
 * the tree is consistent; a board the walk never reaches (a cycle, a parent in another workspace)
 * counts too.
 */
export async function pathsOutOfStep(db: Db, workspaceId: number): Promise<{ id: number; stored: string; walked: string | null }[]> {
  const walked = await queryRows<Row>(
    db,
    sql`with recursive walk(id, ancestry, depth) as (
          select id, '/'::text, 0 from boards where workspace_id = ${workspaceId} and parent_id is null
          union all
          select b.id, walk.ancestry || walk.id || '/', walk.depth + 1
            from boards b join walk on b.parent_id = walk.id
           where b.workspace_id = ${workspaceId}
        ) select id, ancestry, depth from walk`,
  );
  const stored = await queryRows<Row>(db, sql`select id, ancestry, depth from boards where workspace_id = ${workspaceId}`);
  const byId = new Map(walked.map((w) => [Number(w.id), w]));
  const wrong: { id: number; stored: string; walked: string | null }[] = [];
  for (const s of stored) {
    const w = byId.get(Number(s.id));
    if (!w || w.ancestry !== s.ancestry || Number(w.depth) !== Number(s.depth)) {
      wrong.push({ id: Number(s.id), stored: `${s.ancestry} (${s.depth})`, walked: w ? `${w.ancestry} (${w.depth})` : null });
    }
  }
  return wrong;
}
