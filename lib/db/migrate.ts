import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import type { PgliteDatabase } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import type { PostgresJsDatabase } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import { backupBeforeUpgrade } from "./pre-upgrade-backup";

export const migrationsFolder = () => path.join(process.cwd(), "drizzle");

/** Arbitrary constant: the advisory lock several app nodes take so that only one migrates at a time. */
const MIGRATION_LOCK = 7_150_241;

/**
 * Drizzle's migrator applies every pending migration inside ONE transaction (drizzle-orm's
 * pg-core dialect `migrate`): a statement that fails half-way rolls back all of them, including
 * the rows it would have added to drizzle.__drizzle_migrations, so the database is left as the
 * previous release wrote it (tests/upgrade/failed-migration.test.ts).
 */
export async function migratePostgresDb(db: PostgresJsDatabase<Record<string, unknown>>) {
  await db.execute(sql`select pg_advisory_lock(${MIGRATION_LOCK})`);
  try {
    await migratePostgres(db, { migrationsFolder: migrationsFolder() });
  } finally {
    await db.execute(sql`select pg_advisory_unlock(${MIGRATION_LOCK})`);
  }
}

export type PgliteMigrateOptions = {
  /** The embedded data dir: when set and it already holds a migrated database, pending migrations are preceded by a backup into <dataDir>/backups/. */
  dataDir?: string;
  /** Tests only: another folder of migrations (a release's, or one that fails half-way). */
  migrationsFolder?: string;
};

/** PGlite has one owner process (see embedded/open.ts), so it needs no lock. */
export async function migratePgliteDb(db: PgliteDatabase<Record<string, unknown>>, opts: PgliteMigrateOptions = {}) {
  const folder = opts.migrationsFolder ?? migrationsFolder();
  if (opts.dataDir) await backupBeforeUpgrade((db as unknown as { $client: PGlite }).$client, { dataDir: opts.dataDir, migrationsFolder: folder });
  await migratePglite(db, { migrationsFolder: folder });
}
