/**
 * bench/api/in-process: the CPU Easel's own code spends on the three read routes of bench/api,
 * without HTTP or Next.js around it: each route's handler (the function its route file exports)
 * called in a loop with a Request, on PostgreSQL, side by side with the same SQL written straight to
 * postgres.js and the same JSON (the bare server's work, in-process). The difference between the
 * two is Easel's plumbing: authentication, rate limit, validation, the ORM, the envelope. Each
 * figure is process CPU per call (user + system), median of five rounds; a load test on a shared
 * machine moves by more than these differences.
 *
 *   DATABASE_URL=postgres://… npx tsx bench/api/in-process.ts [--calls 2000]
 */
import "./unlimited-rate";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { toAssetJson } from "../../lib/assets/present";
import { postgresDb } from "../../lib/db/client";
import { migratePostgresDb } from "../../lib/db/migrate";
import type { Asset, AssetVersion, Workspace } from "../../lib/db/schema";
import { setDeps } from "../../lib/deps";
import { recordingJobSender } from "../../lib/jobs/send";
import { mediaLinker } from "../../lib/media/links";
import { layout } from "../../lib/objectstore/disk/layout";
import { storageFor } from "../../lib/storage";
import { toVersionJson } from "../../lib/versions/present";
import { insertAsset, newApiToken, newBoard, newWorkspace } from "../../tests/helpers/factories";
import { scratchDatabase } from "../scale/cluster";

const argv = process.argv.slice(2);
const CALLS = Number(argv[argv.indexOf("--calls") + 1] || 2000) || 2000;

type Params = Record<string, string | string[]>;
type Route = (req: Request, ctx: { params: Promise<Params> }) => Promise<Response>;

function cpuMsNow(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** CPU ms per call of `fn`, median of five rounds of `calls` calls, 8 in flight (as a loaded server has several). */
async function measure(calls: number, fn: () => Promise<void>): Promise<number> {
  for (let i = 0; i < Math.min(calls, 300); i++) await fn();
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const c0 = cpuMsNow();
    let left = calls;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (left-- > 0) await fn();
      }),
    );
    rounds.push((cpuMsNow() - c0) / calls);
  }
  return rounds.sort((a, b) => a - b)[2];
}

async function main() {

  const server = process.env.DATABASE_URL;
  if (!server) throw new Error("set DATABASE_URL to a PostgreSQL server (a database of its own is created there)");
  const scratch = await scratchDatabase(server, "bench_inproc");
  const client = postgres(scratch.url, { onnotice: () => undefined, max: 10 });
  const db = postgresDb(client);
  await migratePostgresDb(db as never);
  // The embedded store, its files in a scratch folder (these read routes do not touch it).
  const objects = fs.mkdtempSync(path.join(os.tmpdir(), "easel-bench-inproc-"));
  const clock = () => new Date();
  setDeps({ db, clock, jobs: recordingJobSender(), storage: (kind, baseUrl) => storageFor(kind, { baseUrl, db, clock, embeddedLayout: layout(objects) }) });

  const ws = await newWorkspace(db, { plan: "team" });
  const token = await newApiToken(db, ws, { scopes: ["read", "write"] });
  const board = await newBoard(db, ws, { title: "Bench" });
  const assets: Asset[] = [];
  for (let i = 0; i < 30; i++) assets.push(await insertAsset(db, ws, { title: `Asset ${i}`, boardIds: [board.id], media: { width: 32, height: 32 } }));
  const first = assets[0];

  const assetRoute = (await import("../../app/v1/[slug]/assets/[token]/route")).GET as unknown as Route;
  const versionsRoute = (await import("../../app/v1/[slug]/assets/[token]/versions/route")).GET as unknown as Route;
  const boardAssetsRoute = (await import("../../app/v1/[slug]/boards/[boardToken]/assets/route")).GET as unknown as Route;
  // The handler the HTTP bench's floor line reaches: a CORS preflight, answered with no database.
  const preflightRoute = (await import("../../app/v1/[slug]/assets/[token]/route")).OPTIONS as unknown as Route;
  const origin = "http://127.0.0.1:3911";
  const call = async (route: Route, path: string, params: Params, status = 200, method = "GET") => {
    const res = await route(new Request(`${origin}${path}`, { method, headers: { authorization: `Bearer ${token}` } }), { params: Promise.resolve(params) });
    if (res.status !== status) throw new Error(`${path} → ${res.status} ${await res.text()}`);
    await res.text();
  };

  // The bare server's work for the same answers (bench/api/bare-server.ts), in this process.
  const sql = postgres(scratch.url, { onnotice: () => undefined, transform: postgres.camel, max: 10 });
  const link = mediaLinker(origin, "bench-secret", new Date());
  const withSize = (row: postgres.Row) => ({ ...row, size: Number(row.size) });
  const tokensOf = async (ids: number[]) => {
    const rows = await sql<{ assetId: number; token: string }[]>`select asset_boards.asset_id, boards.token from asset_boards inner join boards on boards.id = asset_boards.board_id where asset_boards.asset_id in ${sql(ids)} order by asset_boards.created_at, boards.id`;
    const map = new Map<number, string[]>(ids.map((id) => [id, []]));
    for (const r of rows) map.get(r.assetId)?.push(r.token);
    return map;
  };
  const bare = {
    asset: async () => {
      const [row] = await sql`select * from assets where token = ${first.token} limit 1`;
      const asset = withSize(row) as unknown as Asset;
      JSON.stringify({ data: toAssetJson(asset, (await tokensOf([asset.id])).get(asset.id) ?? [], link) });
    },
    versions: async () => {
      const [asset] = await sql`select * from assets where token = ${first.token} limit 1`;
      const [workspace] = await sql`select * from workspaces where id = ${asset.workspaceId}`;
      const total = asset.nextVersionNumber - 1;
      const rows = await sql`select * from asset_versions where asset_id = ${asset.id} and version_number <= ${total} and version_number > ${total - 100} order by version_number desc`;
      const ctx = { surface: "rest" as const, workspace: workspace as unknown as Workspace, now: new Date(), assetToken: asset.token, link };
      JSON.stringify({ data: rows.map((v) => toVersionJson(withSize(v) as unknown as AssetVersion, ctx)), head_version_number: asset.nextVersionNumber });
    },
    boardAssets: async () => {
      const [b] = await sql`select * from boards where token = ${board.token} limit 1`;
      const inBoard = sql`workspace_id = ${b.workspaceId} and exists (select 1 from asset_boards where asset_boards.asset_id = assets.id and asset_boards.board_id = ${b.id})`;
      const [rows, [{ total }]] = await Promise.all([
        sql`select * from assets where ${inBoard} order by created_at desc, id desc limit 20`,
        sql<{ total: number }[]>`select count(*)::int as total from assets where ${inBoard}`,
      ]);
      const tokens = await tokensOf(rows.map((r) => r.id));
      JSON.stringify({ data: rows.map((r) => toAssetJson(withSize(r) as unknown as Asset, tokens.get(r.id) ?? [], link)), total });
    },
  };

  console.log(`node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}; ${CALLS} calls × 5 rounds per figure`);
  console.log(`${"route".padEnd(32)} ${"Easel handler".padStart(14)} ${"bare".padStart(9)} ${"floor".padStart(9)} ${"Easel − bare".padStart(13)} ${"− floor".padStart(10)}`);
  const rows: [string, () => Promise<void>, () => Promise<void>][] = [
    ["GET /v1/:slug/assets/:token", () => call(assetRoute, `/v1/${ws.slug}/assets/${first.token}`, { slug: ws.slug, token: first.token }), bare.asset],
    ["GET …/assets/:token/versions", () => call(versionsRoute, `/v1/${ws.slug}/assets/${first.token}/versions`, { slug: ws.slug, token: first.token }), bare.versions],
    ["GET …/boards/:token/assets", () => call(boardAssetsRoute, `/v1/${ws.slug}/boards/${board.token}/assets`, { slug: ws.slug, boardToken: board.token }), bare.boardAssets],
  ];
  // What the HTTP bench's floor line pays inside its handler (a Request in, a Response read out),
  // which every route's figure here includes too: "− floor" is the figure to set against the
  // goal's 0.15 ms, as "Easel − floor − bare" is over HTTP.
  const floorHandler = () => call(preflightRoute, `/v1/${ws.slug}/assets/${first.token}`, { slug: ws.slug, token: first.token }, 204, "OPTIONS");
  const ms = (x: number, width: number) => `${x.toFixed(3)} ms`.padStart(width);
  for (const [name, easel, bareFn] of rows) {
    const e = await measure(CALLS, easel);
    const b = await measure(CALLS, bareFn);
    // Measured beside each route so that drift of a shared machine moves all three alike.
    const f = await measure(CALLS, floorHandler);
    console.log(`${name.padEnd(32)} ${ms(e, 14)} ${ms(b, 9)} ${ms(f, 9)} ${ms(e - b, 13)} ${ms(e - b - f, 10)}`);
  }
  console.log(`load average after ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  await sql.end();
  await client.end();
  await scratch.drop();
  fs.rmSync(objects, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
