import { and, eq, inArray, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { DbOrTx } from "../db";
import { prepared } from "../db/prepared";
import { boards, type Board } from "../db/schema";
import { ancestorIdsOf } from "./tree";

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
  // Every board route and board view reads its board first: the query is built once per handle.
  const byToken = prepared(db, "board_by_token", (d) =>
    selectBoards(d)
      .where(and(eq(boards.workspaceId, sql.placeholder("workspaceId")), eq(boards.token, sql.placeholder("token"))))
      .limit(1)
      .prepare("board_by_token"),
  );
  const [row] = await byToken.execute({ workspaceId, token });
  return row ?? null;
}

/**
 * The given boards of a workspace and all their ancestors (webhook fan-out walks up the tree): one
 * query for the boards' ancestry, the ancestors read from it.
 */
export async function withAncestors(db: DbOrTx, workspaceId: number, boardIds: number[]): Promise<number[]> {
  if (boardIds.length === 0) return [];
  const rows = await db
    .select({ id: boards.id, ancestry: boards.ancestry })
    .from(boards)
    .where(and(eq(boards.workspaceId, workspaceId), inArray(boards.id, boardIds)));
  const ids = new Set<number>();
  for (const row of rows) {
    ids.add(row.id);
    for (const id of ancestorIdsOf(row)) ids.add(id);
  }
  return [...ids];
}
