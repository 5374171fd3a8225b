import http from "node:http";
import postgres from "postgres";
import { toAssetJson } from "../../lib/assets/present";
import type { Asset, AssetVersion, Workspace } from "../../lib/db/schema";
import { mediaLinker } from "../../lib/media/links";
import { toVersionJson } from "../../lib/versions/present";

/**
 * The ceiling for bench/api: a bare node:http server answering Easel's three read routes with
 * the same SQL written straight to postgres.js (tagged templates: prepared statements, one round
 * trip per query) and the same JSON (Easel's own presenters) — no framework, no ORM, no auth, no
 * rate limits, no validation. Against PGlite the statements go unprepared, as Easel's do, because
 * the embedded socket multiplexes one session.
 */
export async function startBareServer(connection: postgres.Options<Record<string, never>> | string, port: number) {
  const options = { onnotice: () => undefined, transform: postgres.camel };
  const sql = typeof connection === "string" ? postgres(connection, { ...options, max: 10 }) : postgres({ ...connection, ...options, max: 1 });
  const link = mediaLinker(`http://127.0.0.1:${port}`, "bench-secret", new Date());
  // postgres.js answers bigint as a string; Easel's schema reads sizes as numbers.
  const withSize = (row: postgres.Row) => ({ ...row, size: Number(row.size) });

  const boardTokensOf = async (ids: number[]) => {
    const rows = ids.length
      ? await sql<{ assetId: number; token: string }[]>`select asset_boards.asset_id, boards.token from asset_boards inner join boards on boards.id = asset_boards.board_id where asset_boards.asset_id in ${sql(ids)} order by asset_boards.created_at, boards.id`
      : [];
    const map = new Map<number, string[]>(ids.map((id) => [id, []]));
    for (const r of rows) map.get(r.assetId)?.push(r.token);
    return map;
  };

  const routes: [RegExp, (m: RegExpExecArray) => Promise<unknown>][] = [
    [/^\/asset\/([^/]+)$/, async (m) => {
      const [row] = await sql`select * from assets where token = ${m[1]} limit 1`;
      const asset = withSize(row) as unknown as Asset;
      return { data: toAssetJson(asset, (await boardTokensOf([asset.id])).get(asset.id) ?? [], link) };
    }],
    [/^\/versions\/([^/]+)$/, async (m) => {
      const [asset] = await sql`select * from assets where token = ${m[1]} limit 1`;
      const [workspace] = await sql`select * from workspaces where id = ${asset.workspaceId}`;
      const total = asset.nextVersionNumber - 1;
      const rows = await sql`select * from asset_versions where asset_id = ${asset.id} and version_number <= ${total} and version_number > ${total - 100} order by version_number desc`;
      const ctx = { surface: "rest" as const, workspace: workspace as unknown as Workspace, now: new Date(), assetToken: asset.token, link };
      return {
        data: rows.map((v) => toVersionJson(withSize(v) as unknown as AssetVersion, ctx)),
        head_version_number: asset.nextVersionNumber,
        pagy: { current_page: 1, page_items: rows.length, total_pages: Math.max(1, Math.ceil(total / 100)), total_count: total },
      };
    }],
    [/^\/board-assets\/([^/]+)$/, async (m) => {
      const [board] = await sql`select * from boards where token = ${m[1]} limit 1`;
      const inBoard = sql`workspace_id = ${board.workspaceId} and exists (select 1 from asset_boards where asset_boards.asset_id = assets.id and asset_boards.board_id = ${board.id})`;
      const [rows, [{ total }]] = await Promise.all([
        sql`select * from assets where ${inBoard} order by created_at desc, id desc limit 20`,
        sql<{ total: number }[]>`select count(*)::int as total from assets where ${inBoard}`,
      ]);
      const tokens = await boardTokensOf(rows.map((r) => r.id));
      return {
        data: rows.map((r) => toAssetJson(withSize(r) as unknown as Asset, tokens.get(r.id) ?? [], link)),
        pagy: { current_page: 1, page_items: rows.length, total_pages: Math.max(1, Math.ceil(total / 20)), total_count: total },
      };
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
  return { close: async () => { server.close(); await sql.end(); } };
}
