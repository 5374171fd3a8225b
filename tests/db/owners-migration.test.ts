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
 * Migration 0007 (workspace members) keeps everyone who could sign in before roles existed an
 * owner: they were all made by `admin create`. Users made after it are not owners by default.
 */
function foldersBefore0007(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-mig-owners-"));
  fs.mkdirSync(path.join(dir, "meta"));
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder(), "meta/_journal.json"), "utf8"));
  journal.entries = journal.entries.filter((e: { idx: number }) => e.idx <= 6);
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
    const name = `easel_mig_owners_${process.pid}_${Date.now().toString(36)}`;
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
});

afterAll(async () => {
  await close?.();
});

describe("migration 0007: workspace members", () => {
  it("makes every existing user an owner and drops the old role column; new users are not owners", async () => {
    await migrateTo(foldersBefore0007());
    await db.execute(sql`insert into users (email, password_hash, role, created_at) values ('old-a@easel.test', 'h', 'admin', now()), ('old-b@easel.test', 'h', 'admin', now())`);
    await migrateTo(migrationsFolder());
    const old = await queryRows<{ email: string; is_owner: boolean }>(db, sql`select email, is_owner from users order by email`);
    expect(old).toEqual([
      { email: "old-a@easel.test", is_owner: true },
      { email: "old-b@easel.test", is_owner: true },
    ]);
    await db.execute(sql`insert into users (email, password_hash, created_at) values ('new@easel.test', 'h', now())`);
    const [fresh] = await queryRows<{ is_owner: boolean }>(db, sql`select is_owner from users where email = 'new@easel.test'`);
    expect(fresh.is_owner).toBe(false);
    const roleColumn = await queryRows(db, sql`select 1 from information_schema.columns where table_name = 'users' and column_name = 'role'`);
    expect(roleColumn).toEqual([]);
  });
});
