/**
 * bench/versions: latency of version operations on an asset with 10 stored versions and on one
 * with 100,000, side by side in one process; the ratio 100k/10 shows whether history length
 * costs anything (target ≤ 2 for every operation).
 *
 *   npx tsx bench/versions/run.ts            # embedded PGlite
 *   DATABASE_URL=postgres://… npx tsx bench/versions/run.ts
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { systemClock } from "../../lib/clock";
import type { Db } from "../../lib/db";
import { migratePgliteDb, migratePostgresDb } from "../../lib/db/migrate";
import * as schema from "../../lib/db/schema";
import type { Deps } from "../../lib/deps";
import { recordingJobSender } from "../../lib/jobs/send";
import { mediaLinker } from "../../lib/media/links";
import { layout } from "../../lib/objectstore/disk/layout";
import { storageFor } from "../../lib/storage";
import { listVersions } from "../../lib/versions/list-versions";
import { revertAsset } from "../../lib/versions/revert-asset";
import { writeVersion } from "../../lib/versions/write-version";
import { insertAsset, newBoard, newWorkspace } from "../../tests/helpers/factories";

async function openDb(): Promise<{ db: Db; close: () => Promise<void>; label: string }> {
  if (process.env.DATABASE_URL) {
    const client = postgres(process.env.DATABASE_URL, { onnotice: () => undefined, max: 4 });
    const db = drizzlePostgres(client, { schema });
    await migratePostgresDb(db);
    return { db: db as unknown as Db, close: () => client.end(), label: "PostgreSQL" };
  }
  const pg = await PGlite.create();
  const db = drizzlePglite(pg, { schema });
  await migratePgliteDb(db);
  return { db: db as unknown as Db, close: () => pg.close(), label: "PGlite (embedded)" };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function time(runs: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  await fn(-1); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn(i);
    samples.push(performance.now() - t0);
  }
  return median(samples);
}

async function main() {
  const { db, close, label } = await openDb();
  // The embedded store, its files in a scratch folder.
  const objects = fs.mkdtempSync(path.join(os.tmpdir(), "easel-bench-versions-"));
  const storage = storageFor("s3", { baseUrl: "http://bench.local", db, clock: systemClock, embeddedLayout: layout(objects) });
  const deps: Deps = { db, clock: systemClock, jobs: recordingJobSender(), storage: () => storage };
  const ws = await newWorkspace(db, { plan: "team" });
  const board = await newBoard(db, ws);
  const link = mediaLinker("http://bench.local", "secret", new Date());
  const principal = { kind: "api" as const, tokenId: 0, scopes: ["read" as const, "write" as const], webhooks: false, prefix: "easel_bench", workspace: ws };

  async function assetWith(n: number) {
    const asset = await insertAsset(db, ws, { boardIds: [board.id] });
    await storage.write(asset.storageKey, Buffer.from("bytes"), "image/png");
    // Bulk history: n snapshots that all point at the asset's own bytes.
    await db.execute(sql`insert into asset_versions (asset_id, version_number, source, title, media_type, size, md5, storage_key, created_at)
      select ${asset.id}, g, 'UPLOAD', 'v' || g, 'image/png', 5, ${asset.md5}, ${asset.storageKey}, now() from generate_series(1, ${n}) g`);
    await db.execute(sql`update assets set next_version_number = ${n + 1} where id = ${asset.id}`);
    return asset;
  }

  const sizes = [10, 100_000];
  const results: Record<string, number[]> = {};
  for (const n of sizes) {
    const t0 = performance.now();
    const asset = await assetWith(n);
    console.log(`# ${label}: asset with ${n.toLocaleString("en")} versions ready in ${Math.round(performance.now() - t0)} ms`);
    const page = (p: number) => listVersions(deps, { workspace: ws, token: asset.token, page: { page: p, perPage: 100 }, surface: "rest", link });
    const lastPage = Math.max(1, Math.ceil(n / 100));
    const ops: [string, () => Promise<unknown>][] = [
      ["list page 1", () => page(1)],
      ["list last page", () => page(lastPage)],
      ["revert", () => revertAsset(deps, storage, { workspace: ws, principal, token: asset.token, versionNumber: 1, comment: "bench" }).then(() => revertAsset(deps, storage, { workspace: ws, principal, token: asset.token, versionNumber: 2 }))],
      ["version write (checkpoint)", () => writeVersion(deps, storage, { workspace: ws, principal, token: asset.token, comment: "bench", metadata: {} })],
    ];
    for (const [name, fn] of ops) (results[name] ??= []).push(await time(30, fn));
  }
  console.log(`\n${label}: median latency, ms (revert = two reverts, alternating targets)`);
  console.log(`${"operation".padEnd(28)} ${"10 versions".padStart(12)} ${"100k versions".padStart(14)} ${"ratio".padStart(7)}`);
  for (const [name, [small, big]] of Object.entries(results)) {
    console.log(`${name.padEnd(28)} ${small.toFixed(2).padStart(12)} ${big.toFixed(2).padStart(14)} ${(big / small).toFixed(2).padStart(7)}`);
  }
  await close();
  fs.rmSync(objects, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
