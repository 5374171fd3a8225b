import { setImmediate as nextTurn } from "node:timers/promises";
import { sql } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { prepared } from "../db/prepared";
import { assets, type Asset } from "../db/schema";
import { isSingleSession } from "../db/types";
import { boardTokensOfAssetRow } from "./board-tokens";

/** An asset of a page, picked by a query that read its id and not its row; `bytes` is the row's rough size. */
export type PageEntry = { id: number; bytes: number };

/**
 * The rough size of an asset's row as an answer carries it: the lengths of its texts (read
 * without decompressing them) and the stored sizes of its tags and fields (which may be
 * compressed, but are bounded to tens of kilobytes: docs/security.md, "Bounds on every input").
 */
export const rowBytes = () =>
  sql<number>`(octet_length(${assets.title}) + coalesce(octet_length(${assets.description}), 0) + coalesce(octet_length(${assets.text}), 0)
    + pg_column_size(${assets.tags}) + pg_column_size(${assets.fields}))::int`.mapWith(Number);

/**
 * Rows read by one statement, at most. A page of the 100 largest assets is 18.7 MB of rows: read
 * at once, decoding them (and on the embedded database, running the statement on the server's
 * own thread) held the event loop 150-250 ms. Read alone, one of those rows (about 190 kB, of
 * which this estimate sees 112 kB) took 4-7 ms on the embedded database, and a megabyte 20-60 ms
 * at load 14. With a turn of the event loop between statements, the largest rows are read one
 * at a time, while a page of ordinary assets (a few kB each) still takes a statement or two.
 */
export const GROUP_BYTES = 128 * 1024;

/** Consecutive runs of entries whose rows add up to at most GROUP_BYTES (a larger row alone). */
export function groupsOf(entries: PageEntry[], budget = GROUP_BYTES): PageEntry[][] {
  const groups: PageEntry[][] = [];
  let current: PageEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    if (current.length && bytes + entry.bytes > budget) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(entry);
    bytes += entry.bytes;
  }
  if (current.length) groups.push(current);
  return groups;
}

function rowsByIds(db: DbOrTx) {
  return prepared(db, "asset_rows_by_ids", (d) =>
    d
      .select({ asset: assets, boardTokens: boardTokensOfAssetRow() })
      .from(assets)
      .where(sql`${assets.id} = any(${sql.placeholder("ids")}::int[])`)
      .prepare("asset_rows_by_ids"),
  );
}

/**
 * The rows of `entries`, each with its board tokens, in the entries' order. On the embedded
 * database they are read a group at a time with a turn of the event loop between groups; on
 * PostgreSQL in one statement, whose rows the driver decodes one by one as they arrive. A row
 * deleted since its id was read is left out (the page then holds fewer items, as its pagy says).
 */
export async function readRowsInGroups(db: DbOrTx, entries: PageEntry[]): Promise<{ asset: Asset; boardTokens: string[] }[]> {
  if (!entries.length) return [];
  const byId = new Map<number, { asset: Asset; boardTokens: string[] }>();
  const query = rowsByIds(db);
  let first = true;
  for (const group of isSingleSession(db) ? groupsOf(entries) : [entries]) {
    if (!first) await nextTurn();
    first = false;
    for (const row of await query.execute({ ids: group.map((e) => e.id) })) byId.set(row.asset.id, row);
  }
  return entries.flatMap((e) => byId.get(e.id) ?? []);
}
