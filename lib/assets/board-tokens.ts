import { asc, eq, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { prepared } from "../db/prepared";
import { assetBoards, assets, boards } from "../db/schema";

/** Board tokens of the assets `where` picks, oldest membership first. */
const tokensWhere = (db: DbOrTx, where: SQL) =>
  db
    .select({ assetId: assetBoards.assetId, token: boards.token })
    .from(assetBoards)
    .innerJoin(boards, eq(boards.id, assetBoards.boardId))
    .where(where)
    .orderBy(asc(assetBoards.createdAt), asc(boards.id));

/** Board tokens of many assets in one query (no N+1 when listing). */
export async function boardTokensByAsset(db: DbOrTx, assetIds: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(assetIds.map((id) => [id, []]));
  if (!assetIds.length) return out;
  // One query, built once per database handle, serves one asset and a page alike: the ids go as one
  // array parameter.
  const rows = await prepared(db, "board_tokens_of_assets", (d) =>
    tokensWhere(d, sql`${assetBoards.assetId} = any(${sql.placeholder("ids")}::int[])`).prepare("board_tokens_of_assets"),
  ).execute({ ids: assetIds });
  for (const r of rows) out.get(r.assetId)?.push(r.token);
  return out;
}

/**
 * The board tokens of the row of `assets` in the enclosing query, as one text[] column: the same
 * tokens in the same order as boardTokensByAsset, for a read that should take one round trip (one
 * asset, or a page of them: asset-page.ts).
 */
export const boardTokensOfAssetRow = () =>
  // Aliased and qualified by hand: Drizzle renders a one-table query's columns unqualified, which
  // would make the subquery's `id` and `created_at` ambiguous.
  sql<string[]>`coalesce((select array_agg(b.token order by ab.created_at, b.id)
    from ${assetBoards} ab inner join ${boards} b on b.id = ab.board_id
    where ab.asset_id = ${assets}.id), '{}')`;
