import { eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { assetBoards, boards } from "../db/schema";
import { MAX_BOARDS } from "./message";

/** Board ids of a materialised path ("/1/5/9/": the ancestors, root first). */
const idsOfPath = (path: string) => path.split("/").filter(Boolean).map(Number).filter(Number.isSafeInteger);

/**
 * The tokens of the boards an asset sits on and of all their ancestors: a grid of a parent board
 * that shows its sub-boards' assets changes too. Null past MAX_BOARDS (the page then refreshes
 * every grid). `boardIds` for an asset already deleted (its memberships went with it).
 */
export async function boardTokensOf(db: DbOrTx, input: { assetId: number } | { boardIds: number[] }): Promise<string[] | null> {
  const direct =
    "assetId" in input
      ? await db.select({ id: boards.id, token: boards.token, ancestry: boards.ancestry }).from(assetBoards).innerJoin(boards, eq(boards.id, assetBoards.boardId)).where(eq(assetBoards.assetId, input.assetId))
      : input.boardIds.length
        ? await db.select({ id: boards.id, token: boards.token, ancestry: boards.ancestry }).from(boards).where(inArray(boards.id, input.boardIds))
        : [];
  const tokens = new Set(direct.map((b) => b.token));
  const known = new Set(direct.map((b) => b.id));
  const ancestors = [...new Set(direct.flatMap((b) => idsOfPath(b.ancestry)))].filter((id) => !known.has(id));
  if (ancestors.length) {
    for (const row of await db.select({ token: boards.token }).from(boards).where(inArray(boards.id, ancestors))) tokens.add(row.token);
  }
  return tokens.size > MAX_BOARDS ? null : [...tokens];
}
