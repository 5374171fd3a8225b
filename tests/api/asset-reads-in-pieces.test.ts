import { and, count, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as assetsRoute from "../../app/v1/[slug]/assets/route";
import { pageEntries } from "../../lib/assets/asset-page";
import { assetWhere, textMatches } from "../../lib/assets/list-assets";
import { groupsOf, readRowsInGroups } from "../../lib/assets/read-in-groups";
import { scanTextMatches } from "../../lib/assets/scan-text-matches";
import { assets, type Asset, type Workspace } from "../../lib/db/schema";
import type { Deps } from "../../lib/deps";
import { call } from "../helpers/call-route";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newApiToken, newBoard, newWorkspace } from "../helpers/factories";

// The listing's reads in pieces (lib/assets/read-in-groups.ts, scan-text-matches.ts): the same
// assets in the same order as one statement finds them, whatever the size of the pieces.

let deps: Deps;
let ws: Workspace;
let rw: string;
const made: Asset[] = [];

beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db);
  rw = await newApiToken(deps.db, ws);
  const board = await newBoard(deps.db, ws);
  const t0 = Date.parse("2026-03-01T00:00:00Z");
  for (let i = 0; i < 13; i++) {
    // Pairs of assets created in the same microsecond-precise instant: the cursor must order them by id.
    const at = new Date(t0 + Math.floor(i / 2) * 1000);
    const where = i % 4;
    made.push(
      await insertAsset(deps.db, ws, {
        title: where === 0 ? `Harbour ${i}` : `Asset ${i}`,
        description: where === 1 ? "a HARBOUR view" : undefined,
        text: where === 2 ? `${"x".repeat(3000 * i)} harbour` : "nothing",
        fields: where === 3 && i % 8 === 3 ? { place: "the harbour" } : { place: "inland" },
        tags: i === 12 ? ["harbour"] : [],
        createdAt: at,
        boardIds: [board.id],
      }),
    );
  }
  await insertAsset(deps.db, await newWorkspace(deps.db), { title: "Harbour of another tenant" });
});

/** What one statement answers: the matching ids, newest first. */
async function inOneStatement(term: string): Promise<number[]> {
  const rows = await deps.db
    .select({ id: assets.id })
    .from(assets)
    .where(and(eq(assets.workspaceId, ws.id), textMatches(term)))
    .orderBy(desc(assets.createdAt), desc(assets.id));
  return rows.map((r) => r.id);
}

describe("scanTextMatches", () => {
  it.each([
    { candidates: 1000, bytes: 128 * 1024 },
    { candidates: 2, bytes: 1 },
    { candidates: 3, bytes: 5000 },
    { candidates: 13, bytes: 1 },
  ])("finds what one statement finds, in its order: pieces of %o", async (pieces) => {
    const expected = await inOneStatement("harbour");
    expect(expected.length).toBeGreaterThan(5);
    const found = await scanTextMatches(deps.db, assetWhere({ workspace: ws, boards: null }), textMatches("harbour"), pieces);
    expect(found.map((f) => f.id)).toEqual(expected);
  });

  it("finds nothing when nothing matches, and every asset for a term all of them hold", async () => {
    expect(await scanTextMatches(deps.db, assetWhere({ workspace: ws, boards: null }), textMatches("no such words"), { candidates: 4, bytes: 1 })).toEqual([]);
    const [{ total }] = await deps.db.select({ total: count() }).from(assets).where(eq(assets.workspaceId, ws.id));
    const all = await scanTextMatches(deps.db, assetWhere({ workspace: ws, boards: null }), textMatches("A"), { candidates: 4, bytes: 1 });
    expect(all).toHaveLength(total);
  });
});

describe("readRowsInGroups", () => {
  it("groups consecutive entries up to the budget, a larger one alone", () => {
    const e = (id: number, bytes: number) => ({ id, bytes });
    expect(groupsOf([], 10)).toEqual([]);
    expect(groupsOf([e(1, 4), e(2, 4), e(3, 4), e(4, 20), e(5, 1)], 10)).toEqual([[e(1, 4), e(2, 4)], [e(3, 4)], [e(4, 20)], [e(5, 1)]]);
  });

  it("reads the rows in the entries' order, with their board tokens, leaving out a deleted row", async () => {
    const entries = await pageEntries(deps.db, eq(assets.workspaceId, ws.id), 100, 0);
    expect(entries.map((e) => e.id)).toEqual([...made].reverse().map((a) => a.id));
    // The row sizes are seen: the longest text is the largest entry.
    expect(Math.max(...entries.map((e) => e.bytes))).toBe(entries.find((e) => e.id === made[10].id)!.bytes);
    const rows = await readRowsInGroups(deps.db, [...entries, { id: 2_000_000_000, bytes: 1 }]);
    expect(rows.map((r) => r.asset.id)).toEqual(entries.map((e) => e.id));
    expect(rows.every((r) => r.boardTokens.length === 1)).toBe(true);
  });
});

describe("GET /v1/:slug/assets?query=", () => {
  it("answers a page of the matches and their count, as one statement counts them", async () => {
    const expected = await inOneStatement("harbour");
    const res = await call(assetsRoute.GET, { path: `/v1/${ws.slug}/assets?query=harbour&per_page=2&page=2`, token: rw, params: { slug: ws.slug } });
    expect(res.status).toBe(200);
    expect(res.body.data.map((a: { id: number }) => a.id)).toEqual(expected.slice(2, 4));
    expect(res.body.pagy).toEqual({ current_page: 2, page_items: 2, total_pages: Math.ceil(expected.length / 2), total_count: expected.length });
  });
});
