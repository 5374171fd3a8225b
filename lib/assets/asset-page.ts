import { desc, inArray, type Placeholder, type SQL } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { assets, type Asset } from "../db/schema";
import { pagy, type Page } from "../http/pagination";
import type { MediaLinker } from "../media/links";
import { boardTokensOfAssetRow } from "./board-tokens";
import { toAssetJson } from "./present";

const newestFirst = () => [desc(assets.createdAt), desc(assets.id)];

/**
 * One page of the assets `where` picks, newest first, each row with its board tokens (one
 * statement). The page's ids are cut first, so the tokens' subquery runs for the page's rows only:
 * in the select list of the sorted query itself, PostgreSQL would run it for every row an OFFSET
 * skips as well.
 */
export function pageWithBoardTokens(d: DbOrTx, where: SQL | undefined, limit: number | Placeholder, offset: number | Placeholder) {
  const pageIds = d.select({ id: assets.id }).from(assets).where(where).orderBy(...newestFirst()).limit(limit).offset(offset);
  return d
    .select({ asset: assets, boardTokens: boardTokensOfAssetRow() })
    .from(assets)
    .where(inArray(assets.id, pageIds))
    .orderBy(...newestFirst());
}

/** A listing's answer: the page's assets as JSON and its pagy. */
export function toAssetListing(rows: { asset: Asset; boardTokens: string[] }[], total: number, page: Page, link: MediaLinker) {
  return { data: rows.map((r) => toAssetJson(r.asset, r.boardTokens, link)), pagy: pagy(page, rows.length, total) };
}
