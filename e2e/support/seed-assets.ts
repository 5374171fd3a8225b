/**
 * `npx tsx e2e/support/seed-assets.ts <board token> <count> <title prefix>`: puts <count> asset rows
 * on a board in one INSERT, through the running server's database socket (as the admin CLI does;
 * EASEL_DATA_DIR names the server's data dir). For the large-board tests: uploading thousands of
 * files through the API would take minutes and test nothing the grid cares about. The rows have
 * no stored bytes (a media type without thumbnails, so the grid draws no picture for them); the
 * newest is "<prefix> 00001", the oldest "<prefix> <count>".
 */
import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import { openDb } from "../../lib/db/client";

async function main() {
  const [boardToken, countArg, prefix] = process.argv.slice(2);
  const count = Number(countArg);
  if (!boardToken || !Number.isInteger(count) || count < 1 || count > 100_000 || !prefix) {
    throw new Error("usage: seed-assets.ts <board token> <count 1..100000> <title prefix>");
  }
  const dataDir = process.env.EASEL_DATA_DIR;
  if (!dataDir) throw new Error("EASEL_DATA_DIR must name the e2e server's data dir");
  const handle = await openDb({ databaseUrl: process.env.DATABASE_URL, dataDir, role: "tool" });
  try {
    const tokenPrefix = `sd${crypto.randomBytes(4).toString("hex")}`;
    // One statement (the server's embedded database has one session: no transaction is held open).
    const result = await handle.db.execute(sql`
      WITH b AS (SELECT id, workspace_id FROM boards WHERE token = ${boardToken}::text),
      made AS (
        INSERT INTO assets (workspace_id, token, title, media_type, size, md5, storage_key, created_at, updated_at)
        SELECT b.workspace_id, ${tokenPrefix}::text || lpad(g::text, 6, '0'), ${prefix}::text || ' ' || lpad(g::text, 5, '0'),
               'application/octet-stream', 1000 + g, md5(g::text), 'seed/none/' || ${tokenPrefix}::text || g::text,
               now() - g * interval '1 second', now() - g * interval '1 second'
        FROM b, generate_series(1, ${count}::int) AS g
        RETURNING id
      )
      INSERT INTO asset_boards (asset_id, board_id, created_at) SELECT made.id, b.id, now() FROM made, b RETURNING asset_id`);
    const rows = Array.isArray(result) ? result : (result as { rows: unknown[] }).rows;
    if (rows.length !== count) throw new Error(`seeded ${rows.length} assets, expected ${count} (is ${boardToken} a board?)`);
    process.stdout.write(`seeded ${rows.length}\n`);
  } finally {
    await handle.close();
  }
}

main().catch((err: unknown) => {
  const cause = err instanceof Error && err.cause ? `\ncaused by: ${String(err.cause)}` : "";
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}${cause}\n`);
  process.exit(1);
});
