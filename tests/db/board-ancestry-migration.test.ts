import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { queryRows, type Db } from "../../lib/db";
import { postgresDb } from "../../lib/db/client";
import { migrationsFolder } from "../../lib/db/migrate";

/**
 * Migration 0004 gives every existing board its materialised path and moves boards nested deeper
 * than the 50-level limit (made before the limit existed) up under their depth-48 ancestor. A chain
 * of thousands of boards must migrate: a path of every ancestor would outgrow a btree index entry.
 */
const CHAIN = 1200;

/** The migrations folder as it was before 0004: the journal cut after 0003. */
function foldersBefore0004(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-mig-"));
  fs.mkdirSync(path.join(dir, "meta"));
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder(), "meta/_journal.json"), "utf8"));
  journal.entries = journal.entries.filter((e: { idx: number }) => e.idx <= 3);
  fs.writeFileSync(path.join(dir, "meta/_journal.json"), JSON.stringify(journal));
  for (const e of journal.entries as { tag: string }[]) fs.copyFileSync(path.join(migrationsFolder(), `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  return dir;
}

let db: Db;
let migrateTo: (folder: string) => Promise<void>;
let close: () => Promise<void>;

beforeAll(async () => {
  const target = inject("testDatabase");
  if (target.kind === "postgres") {
    const admin = postgres(target.url, { onnotice: () => undefined, max: 1 });
    const name = `easel_mig_${process.pid}_${Date.now().toString(36)}`;
    await admin.unsafe(`create database ${name}`);
    const url = new URL(target.url);
    url.pathname = `/${name}`;
    const client = postgres(url.toString(), { onnotice: () => undefined, max: 2 });
    const pgDb = postgresDb(client);
    db = pgDb;
    migrateTo = (folder) => migratePostgres(pgDb as never, { migrationsFolder: folder });
    close = async () => {
      await client.end({ timeout: 5 });
      await admin.unsafe(`drop database if exists ${name}`);
      await admin.end({ timeout: 5 });
    };
  } else {
    const pg = await PGlite.create();
    const liteDb = drizzlePglite(pg);
    db = liteDb as unknown as Db;
    migrateTo = (folder) => migratePglite(liteDb, { migrationsFolder: folder });
    close = () => pg.close();
  }
}, 120_000);

afterAll(async () => close?.());

describe("migration 0004: board paths", () => {
  it("gives every board its path, and moves boards past the limit up to depth 49 inside the same subtree", async () => {
    await migrateTo(foldersBefore0004());
    const now = new Date().toISOString();
    await db.execute(sql`insert into workspaces (slug, name, plan, storage_kind, created_at, updated_at) values ('mig', 'mig', 'team', 's3', ${now}, ${now})`);
    // Ids of five digits, as a long-lived server has: the longest paths a chain can produce.
    await db.execute(sql`select setval(pg_get_serial_sequence('boards', 'id'), 10000)`);
    await db.execute(sql`
      with recursive chain(n) as (select 1 union all select n + 1 from chain where n < ${CHAIN})
      insert into boards (workspace_id, token, title, parent_id, created_at, updated_at)
      select 1, 'c' || n, 'chain ' || n, case when n = 1 then null else 10000 + n - 1 end, ${now}, ${now} from chain order by n`);
    await db.execute(sql`insert into boards (workspace_id, token, title, parent_id, created_at, updated_at) values (1, 'side', 'side', 10003, ${now}, ${now})`);

    await migrateTo(migrationsFolder());

    const rows = await queryRows<{ token: string; id: number; parent_id: number | null; depth: number; ancestry: string }>(
      db,
      sql`select token, id, parent_id, depth, ancestry from boards order by id`,
    );
    const byId = new Map(rows.map((r) => [Number(r.id), r]));
    // Each board's stored path is exactly what its (possibly new) parent links give.
    for (const r of rows) {
      const ancestors: number[] = [];
      for (let p = r.parent_id; p !== null; p = byId.get(Number(p))!.parent_id) ancestors.unshift(Number(p));
      expect({ token: r.token, depth: r.depth, ancestry: r.ancestry }).toEqual({ token: r.token, depth: ancestors.length, ancestry: `/${ancestors.map((a) => `${a}/`).join("")}` });
    }
    const at = (token: string) => rows.find((r) => r.token === token)!;
    expect(Math.max(...rows.map((r) => r.depth))).toBe(49);
    // Up to depth 49 nothing moved; everything deeper now hangs from the depth-48 board.
    expect(Number(at("c50").parent_id)).toBe(Number(at("c49").id));
    expect(Number(at("c51").parent_id)).toBe(Number(at("c49").id));
    expect(Number(at(`c${CHAIN}`).parent_id)).toBe(Number(at("c49").id));
    expect(at(`c${CHAIN}`).depth).toBe(49);
    expect(Number(at("side").parent_id)).toBe(Number(at("c3").id));
    // Still inside the subtree of every board at depth 0..48 on its old path.
    expect(at(`c${CHAIN}`).ancestry.startsWith(at("c49").ancestry)).toBe(true);
  }, 120_000);
});
