import path from "node:path";
import { sql } from "drizzle-orm";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";

export const migrationsFolder = () => path.join(process.cwd(), "drizzle");

/** Arbitrary constant: the advisory lock several app nodes take so that only one migrates at a time. */
const MIGRATION_LOCK = 7_150_241;

export async function migratePostgresDb(db: PostgresJsDatabase<Record<string, unknown>>) {
  await db.execute(sql`select pg_advisory_lock(${MIGRATION_LOCK})`);
  try {
    await migratePostgres(db, { migrationsFolder: migrationsFolder() });
  } finally {
    await db.execute(sql`select pg_advisory_unlock(${MIGRATION_LOCK})`);
  }
}

/** PGlite has one owner process (see embedded/owner.ts), so it needs no lock. */
export async function migratePgliteDb(db: PgliteDatabase<Record<string, unknown>>) {
  await migratePglite(db, { migrationsFolder: migrationsFolder() });
}
