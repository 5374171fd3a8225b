import fs from "node:fs/promises";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { writeArchive } from "../backup/archive-output";
import { runBackup } from "../backup/run-backup";
import { env } from "../env";
import { log } from "../log/logger.mjs";

/** Where start-up keeps its backups, and how many of its own it keeps (other files there are left alone). */
export const BACKUPS_FOLDER = "backups";
export const KEPT_AUTOMATIC_BACKUPS = 3;
const AUTOMATIC_NAME = /^pre-upgrade-\d{8}T\d{6}Z-[\w.-]+\.tar$/;

type JournalEntry = { idx: number; when: number; tag: string };

/**
 * The migrations of `folder` that drizzle's migrator would apply to this database, by its own rule
 * (a journal entry newer than the newest applied one). None for a database never migrated: a new
 * data dir has nothing to lose.
 */
export async function pendingMigrations(pg: PGlite, folder: string): Promise<{ fresh: boolean; pending: string[] }> {
  const journal = JSON.parse(await fs.readFile(path.join(folder, "meta", "_journal.json"), "utf8")) as { entries: JournalEntry[] };
  const { rows } = await pg.query<{ present: boolean }>("select to_regclass('drizzle.__drizzle_migrations') is not null as present");
  if (!rows[0]?.present) return { fresh: true, pending: [] };
  const last = await pg.query<{ last: string | null }>("select max(created_at)::text as last from drizzle.__drizzle_migrations");
  if (last.rows[0]?.last == null) return { fresh: true, pending: [] };
  const applied = Number(last.rows[0].last);
  return { fresh: false, pending: journal.entries.filter((e) => e.when > applied).map((e) => e.tag) };
}

/** 2026-11-29T00:31:07.123Z -> 20261129T003107Z: sorts by time as text. */
function stamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
}

/**
 * Before start-up applies migrations to an existing embedded database, the whole data dir
 * (database and object store) is archived with the project's backup (lib/backup) into
 * <dataDir>/backups/pre-upgrade-<time>-<first pending migration>.tar. Restoring that file and
 * starting the previous build is the way back (docs/upgrading.md). A backup that fails stops the
 * start before any migration runs: the data stays as the previous release left it.
 * EASEL_UPGRADE_BACKUP=off skips it (a self-hoster with backups of their own, or no disk to spare).
 */
export async function backupBeforeUpgrade(pg: PGlite, opts: { dataDir: string; migrationsFolder: string }): Promise<string | null> {
  const { fresh, pending } = await pendingMigrations(pg, opts.migrationsFolder);
  if (fresh || pending.length === 0) return null;
  if (env().EASEL_UPGRADE_BACKUP === "off") {
    log().warn({ component: "database", pending }, "applying migrations without a backup first (EASEL_UPGRADE_BACKUP=off)");
    return null;
  }
  const folder = path.join(opts.dataDir, BACKUPS_FOLDER);
  await fs.mkdir(folder, { recursive: true, mode: 0o700 });
  const file = path.join(folder, `pre-upgrade-${stamp(new Date())}-${pending[0]}.tar`);
  const started = performance.now();
  try {
    const backup = await runBackup(pg, opts.dataDir);
    const bytes = await writeArchive(backup.stream, file).catch(async (err: Error) => {
      // The write's failure is the one reported; the packer's own failure, if any, is logged beside it.
      await backup.summary.catch((packing: unknown) => log().warn({ component: "database", backup: file, err: packing }, "the pre-upgrade backup's packing also failed"));
      throw err;
    });
    const summary = await backup.summary;
    log().info(
      { component: "database", backup: file, bytes, assets: summary.assets, versions: summary.versions, objects: summary.objects, ms: Math.round(performance.now() - started), pending },
      `backed up the data dir to ${file} before applying ${pending.length} migration(s)`,
    );
  } catch (err) {
    throw new Error(
      `could not back up the data dir before applying migrations (${pending.join(", ")}): ${(err as Error).message}. Nothing was migrated; free space in ${folder}, or set EASEL_UPGRADE_BACKUP=off to migrate without it`,
      { cause: err },
    );
  }
  await pruneAutomaticBackups(folder);
  return file;
}

/** Keeps the newest KEPT_AUTOMATIC_BACKUPS of start-up's own archives; anything else in the folder is the operator's. */
export async function pruneAutomaticBackups(folder: string): Promise<string[]> {
  const names = (await fs.readdir(folder)).filter((n) => AUTOMATIC_NAME.test(n)).sort();
  const removed = names.slice(0, Math.max(0, names.length - KEPT_AUTOMATIC_BACKUPS));
  for (const name of removed) await fs.rm(path.join(folder, name), { force: true });
  if (removed.length) log().info({ component: "database", removed }, `removed ${removed.length} older automatic backup(s) from ${folder}`);
  return removed;
}
