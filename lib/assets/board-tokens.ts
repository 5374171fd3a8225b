import { asc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { assetBoards, boards } from "../db/schema";

/** Board tokens of many assets in one query (no N+1 when listing). */
export async function boardTokensByAsset(db: DbOrTx, assetIds: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(assetIds.map((id) => [id, []]));
  if (!assetIds.length) return out;
  const rows = await db
    .select({ assetId: assetBoards.assetId, token: boards.token })
    .from(assetBoards)
    .innerJoin(boards, eq(boards.id, assetBoards.boardId))
    .where(inArray(assetBoards.assetId, assetIds))
    .orderBy(asc(assetBoards.createdAt), asc(boards.id));
  for (const r of rows) out.get(r.assetId)?.push(r.token);
  return out;
}
