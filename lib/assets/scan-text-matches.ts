import { setImmediate as nextTurn } from "node:timers/promises";
import { and, desc, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "../db";
import { assets } from "../db/schema";
import { groupsOf, rowBytes, type PageEntry } from "./read-in-groups";

/** Candidates read by one statement: ids, times and sizes only, a few tens of kilobytes. */
const CANDIDATES_A_STATEMENT = 1000;
/**
 * Text one statement tests for the substring (as read-in-groups.ts estimates it). The test
 * lower-cases and searches every text, tag and field value of an asset: 30-50 ms for ten of the
 * largest assets on the embedded database at load 14, so those are tested one at a time.
 */
export const SCAN_BYTES = 128 * 1024;

/**
 * The assets `where` picks whose searchable text holds `term` (list-assets.ts's textMatches),
 * newest first, found piece by piece: for the embedded database, whose statements run on the
 * server's own thread. One statement testing a substring of 500 characters against 100 assets of
 * the largest shape held the event loop 800 ms there; here each statement tests about
 * SCAN_BYTES of text and a turn of the event loop comes between statements, so other requests
 * are answered meanwhile. The candidates are walked newest first by (created_at, id), the
 * listing's own order, so the matches come out in the page's order. Unlike one statement, the
 * pieces do not see one snapshot: an asset added or changed during the scan may or may not count.
 */
export async function scanTextMatches(
  db: DbOrTx,
  where: SQL | undefined,
  matches: SQL,
  pieces: { candidates: number; bytes: number } = { candidates: CANDIDATES_A_STATEMENT, bytes: SCAN_BYTES },
): Promise<PageEntry[]> {
  const found: PageEntry[] = [];
  let after: { at: string; id: number } | null = null;
  for (;;) {
    const older: SQL | undefined = after ? sql`(${assets.createdAt}, ${assets.id}) < (${after.at}::timestamptz, ${after.id})` : undefined;
    const candidates: (PageEntry & { at: string })[] = await db
      .select({ id: assets.id, bytes: rowBytes(), at: sql<string>`${assets.createdAt}::text` })
      .from(assets)
      .where(and(where, older))
      .orderBy(desc(assets.createdAt), desc(assets.id))
      .limit(pieces.candidates);
    for (const group of groupsOf(candidates, pieces.bytes)) {
      await nextTurn();
      const ids = group.map((c) => c.id);
      const hits = await db
        .select({ id: assets.id })
        .from(assets)
        .where(and(sql`${assets.id} = any(${sql.param(ids)}::int[])`, matches));
      const hit = new Set(hits.map((h) => h.id));
      for (const c of group) if (hit.has(c.id)) found.push({ id: c.id, bytes: c.bytes });
    }
    if (candidates.length < pieces.candidates) return found;
    const last = candidates[candidates.length - 1];
    after = { at: last.at, id: last.id };
    await nextTurn();
  }
}
