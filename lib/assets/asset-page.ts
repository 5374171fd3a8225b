import { desc, inArray, type Placeholder, type SQL } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { assets, type Asset } from "../db/schema";
import { isSingleSession } from "../db/types";
import { pagy, type Page } from "../http/pagination";
import type { MediaLinker } from "../media/links";
import { boardTokensOfAssetRow } from "./board-tokens";
import { toAssetJson } from "./present";
import { readRowsInGroups, rowBytes, type PageEntry } from "./read-in-groups";

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

/**
 * The ids of one page of the assets `where` picks, newest first, each with its row's size
 * (read-in-groups.ts reads the rows themselves a few at a time).
 */
export function pageEntries(d: DbOrTx, where: SQL | undefined, limit: number | Placeholder, offset: number | Placeholder) {
  return d.select({ id: assets.id, bytes: rowBytes() }).from(assets).where(where).orderBy(...newestFirst()).limit(limit).offset(offset);
}

type PageRow = { asset: Asset; boardTokens: string[] };

/**
 * A page's rows with their board tokens, read the way the database allows without holding the
 * event loop. PostgreSQL: the page in one statement (`rows`), since its rows are decoded as they
 * arrive, a row at a time. The embedded database runs a statement on the server's own thread and
 * decodes its whole answer at once: there the page's ids are read first (`entries`) and the rows
 * a few at a time (read-in-groups.ts).
 */
export async function readPageRows(db: DbOrTx, page: { rows: () => Promise<PageRow[]>; entries: () => Promise<PageEntry[]> }): Promise<PageRow[]> {
  return isSingleSession(db) ? readRowsInGroups(db, await page.entries()) : page.rows();
}

/** A listing's answer: the page's assets as JSON and its pagy. */
export function toAssetListing(rows: { asset: Asset; boardTokens: string[] }[], total: number, page: Page, link: MediaLinker) {
  return { data: rows.map((r) => toAssetJson(r.asset, r.boardTokens, link)), pagy: pagy(page, rows.length, total) };
}
