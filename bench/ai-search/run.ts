/**
 * bench/ai-search: what ranking by meaning costs. One query through ai_search on a workspace of
 * N assets that all have a stored vector, with embeddings off (the baseline: parser + full text)
 * and on (full text + cosine similarity of every asset in scope: stored vectors read and compared).
 * The query vector comes from a local OpenAI-shaped server answering at once, so the figures are
 * Easel's own cost, not a model's. Median of the runs after one warm-up.
 *
 *   npx tsx bench/ai-search/run.ts [--assets 1000,10000] [--dims 768] [--runs 15]     # embedded PGlite
 *   DATABASE_URL=postgres://…/scratch npx tsx bench/ai-search/run.ts                   # PostgreSQL (writes a workspace there)
 */
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Db } from "../../lib/db";
import { migratePgliteDb, migratePostgresDb } from "../../lib/db/migrate";
import * as schema from "../../lib/db/schema";
import type { Deps } from "../../lib/deps";
import { packVector } from "../../lib/embeddings/vector";
import { resetEnvCache } from "../../lib/env";
import { mediaLinker } from "../../lib/media/links";
import { aiSearch } from "../../lib/search/ai/ai-search";
import { createWorkspace } from "../../lib/workspaces/manage-workspaces";

const argv = process.argv.slice(2);
const arg = (name: string, fallback: string) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : fallback);
const SIZES = arg("assets", "1000,10000").split(",").map(Number);
const DIMS = Number(arg("dims", "768"));
const RUNS = Number(arg("runs", "15"));
const WORDS = "harbour boat dawn team portrait launch poster sunset beach city street night forest river mountain office".split(" ");

function unitRandom(): number[] {
  const v = Array.from({ length: DIMS }, () => Math.random() * 2 - 1);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

async function openDb(): Promise<{ db: Db; close: () => Promise<unknown>; kind: string }> {
  if (process.env.DATABASE_URL) {
    const client = postgres(process.env.DATABASE_URL, { onnotice: () => undefined, max: 4 });
    const db = drizzlePostgres(client, { schema });
    await migratePostgresDb(db);
    return { db: db as unknown as Db, close: () => client.end(), kind: "PostgreSQL" };
  }
  const pg = await PGlite.create();
  const db = drizzlePglite(pg, { schema });
  await migratePgliteDb(db);
  return { db: db as unknown as Db, close: () => pg.close(), kind: "PGlite" };
}

async function fill(db: Db, workspaceId: number, n: number) {
  const now = new Date();
  for (let i = 0; i < n; i += 500) {
    const rows = Array.from({ length: Math.min(500, n - i) }, (_, j) => ({
      workspaceId,
      token: crypto.randomBytes(8).toString("hex"),
      title: `${WORDS[(i + j) % WORDS.length]} ${WORDS[(i + j * 7) % WORDS.length]} ${i + j}`,
      mediaType: "image/png",
      size: 1000,
      md5: "0".repeat(32),
      storageKey: `bench/${i + j}`,
      createdAt: now,
      updatedAt: now,
    }));
    const ids = await db.insert(schema.assets).values(rows).returning({ id: schema.assets.id });
    await db.insert(schema.assetEmbeddings).values(ids.map(({ id }) => ({ assetId: id, model: "bench", vector: packVector(unitRandom()), sourceHash: "x", createdAt: now })));
  }
}

async function main() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: [{ index: 0, embedding: unitRandom() }] })));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/embeddings`;
  const { db, close, kind } = await openDb();
  const deps: Deps = { db, clock: () => new Date(), jobs: { send: async () => undefined } as never, storage: (() => { throw new Error("no storage"); }) as never };
  const link = mediaLinker("http://bench.local", "secret", new Date());
  const toggle = (on: boolean) => {
    if (on) Object.assign(process.env, { EASEL_EMBEDDINGS_URL: url, EASEL_EMBEDDINGS_MODEL: "bench" });
    else for (const k of ["EASEL_EMBEDDINGS_URL", "EASEL_EMBEDDINGS_MODEL"]) delete process.env[k];
    resetEnvCache();
  };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`ai_search "harbour photos", ${DIMS}-dimension vectors, ${kind}, median of ${RUNS} runs`);
  console.log("assets   full text only   with embeddings   ratio   found (off / on)");
  let filled = 0;
  const ws = await createWorkspace(db, { slug: `bench-${crypto.randomBytes(3).toString("hex")}`, plan: "team", storage: "s3", now: new Date() });
  for (const size of SIZES) {
    await fill(db, ws.id, size - filled);
    filled = size;
    const timed = async (on: boolean) => {
      toggle(on);
      const filter = { workspace: ws, boards: null, query: "harbour photos" };
      const first = await aiSearch(deps, filter, { page: 1, perPage: 20 }, link);
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t0 = performance.now();
        await aiSearch(deps, filter, { page: 1, perPage: 20 }, link);
        times.push(performance.now() - t0);
      }
      return { ms: median(times), found: first.pagy.total_count };
    };
    const off = await timed(false);
    const on = await timed(true);
    console.log(`${String(size).padStart(6)}   ${off.ms.toFixed(1).padStart(11)} ms   ${on.ms.toFixed(1).padStart(12)} ms   ${(on.ms / off.ms).toFixed(1).padStart(4)}×   ${off.found} / ${on.found}`);
  }
  toggle(false);
  await close();
  server.close();
}

await main();
