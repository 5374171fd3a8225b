import http from "node:http";
import { and, asc, count, desc, eq, exists, gt, inArray, lte, sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { toAssetJson } from "../../lib/assets/present";
import * as schema from "../../lib/db/schema";
import { assetBoards, assets, assetVersions, boards, workspaces } from "../../lib/db/schema";
import { mediaLinker } from "../../lib/media/links";
import { toVersionJson } from "../../lib/versions/present";

/**
 * The ceiling for bench/api: a bare node:http server doing the same SQL as Easel's three read
 * routes through postgres.js and answering the same JSON (Easel's own presenters), with no
 * framework, no auth, no rate limits and no validation.
 */
export async function startBareServer(connection: postgres.Options<Record<string, never>> | string, port: number) {
  const client = typeof connection === "string" ? postgres(connection, { max: 10, onnotice: () => undefined }) : postgres({ ...connection, max: 1, onnotice: () => undefined });
  const db = drizzle(client, { schema });
  const link = mediaLinker(`http://127.0.0.1:${port}`, "bench-secret", new Date());
  const tokensOf = async (ids: number[]) => {
    const rows = ids.length
      ? await db.select({ assetId: assetBoards.assetId, token: boards.token }).from(assetBoards).innerJoin(boards, eq(boards.id, assetBoards.boardId)).where(inArray(assetBoards.assetId, ids)).orderBy(asc(assetBoards.createdAt))
      : [];
    const map = new Map<number, string[]>(ids.map((id) => [id, []]));
    for (const r of rows) map.get(r.assetId)?.push(r.token);
    return map;
  };
  const routes: [RegExp, (m: RegExpExecArray) => Promise<unknown>][] = [
    [/^\/asset\/([^/]+)$/, async (m) => {
      const [a] = await db.select().from(assets).where(eq(assets.token, m[1]));
      return { data: toAssetJson(a, (await tokensOf([a.id])).get(a.id) ?? [], link) };
    }],
    [/^\/versions\/([^/]+)$/, async (m) => {
      const [row] = await db.select({ asset: assets, workspace: workspaces }).from(assets).innerJoin(workspaces, eq(workspaces.id, assets.workspaceId)).where(eq(assets.token, m[1]));
      const total = row.asset.nextVersionNumber - 1;
      const rows = await db.select().from(assetVersions).where(and(eq(assetVersions.assetId, row.asset.id), lte(assetVersions.versionNumber, total), gt(assetVersions.versionNumber, total - 100))).orderBy(desc(assetVersions.versionNumber));
      const ctx = { surface: "rest" as const, workspace: row.workspace, now: new Date(), assetToken: row.asset.token, link };
      return { data: rows.map((v) => toVersionJson(v, ctx)), head_version_number: row.asset.nextVersionNumber, pagy: { current_page: 1, page_items: rows.length, total_pages: Math.max(1, Math.ceil(total / 100)), total_count: total } };
    }],
    [/^\/board-assets\/([^/]+)$/, async (m) => {
      const [b] = await db.select().from(boards).where(eq(boards.token, m[1]));
      const where = and(eq(assets.workspaceId, b.workspaceId), exists(sql`(select 1 from ${assetBoards} where ${assetBoards.assetId} = ${assets.id} and ${assetBoards.boardId} = ${b.id})`));
      const [rows, [{ total }]] = await Promise.all([
        db.select().from(assets).where(where).orderBy(desc(assets.createdAt), desc(assets.id)).limit(20),
        db.select({ total: count() }).from(assets).where(where),
      ]);
      const tokens = await tokensOf(rows.map((r) => r.id));
      return { data: rows.map((a) => toAssetJson(a, tokens.get(a.id) ?? [], link)), pagy: { current_page: 1, page_items: rows.length, total_pages: Math.max(1, Math.ceil(total / 20)), total_count: total } };
    }],
  ];
  const server = http.createServer(async (req, res) => {
    try {
      for (const [re, fn] of routes) {
        const m = re.exec(req.url ?? "");
        if (m) {
          const body = JSON.stringify(await fn(m));
          res.writeHead(200, { "content-type": "application/json" });
          res.end(body);
          return;
        }
      }
      res.writeHead(404).end();
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { close: async () => { server.close(); await client.end(); } };
}
