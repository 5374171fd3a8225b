import { and, eq, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { queryRows, type DbOrTx } from "../db";
import { boards, type Board } from "../db/schema";

const parent = alias(boards, "parent");

export type BoardWithParent = { board: Board; parentToken: string | null };

/** Boards joined with their parent's token, filtered by `where`. */
export function selectBoards(db: DbOrTx) {
  return db
    .select({ board: boards, parentToken: parent.token })
    .from(boards)
    .leftJoin(parent, eq(parent.id, boards.parentId));
}

export async function findBoard(db: DbOrTx, workspaceId: number, token: string): Promise<BoardWithParent | null> {
  const [row] = await selectBoards(db)
    .where(and(eq(boards.workspaceId, workspaceId), eq(boards.token, token)))
    .limit(1);
  return row ?? null;
}

/** Ids of a board and all its descendants (recursive), for subtree checks and nested listings. */
export async function subtreeIds(db: DbOrTx, rootId: number): Promise<number[]> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`with recursive tree(id) as (
          select ${boards.id} from ${boards} where ${boards.id} = ${rootId}
          union
          select b.id from ${boards} b join tree on b.parent_id = tree.id
        ) select id from tree`,
  );
  return rows.map((r) => Number(r.id));
}

/** Ids of a board and all its ancestors (webhook fan-out walks up the tree). */
export async function ancestorIds(db: DbOrTx, boardId: number): Promise<number[]> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`with recursive up(id, parent_id) as (
          select ${boards.id}, ${boards.parentId} from ${boards} where ${boards.id} = ${boardId}
          union
          select b.id, b.parent_id from ${boards} b join up on b.id = up.parent_id
        ) select id from up`,
  );
  return rows.map((r) => Number(r.id));
}
