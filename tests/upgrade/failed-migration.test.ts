import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterEach, describe, expect, inject, it } from "vitest";
import { restoreArchive } from "../../lib/backup/restore-archive";
import { dataDirBackupKey } from "../../lib/backup/signing-key";
import { openDb } from "../../lib/db/client";
import { migratePgliteDb, migrationsFolder } from "../../lib/db/migrate";
import { pruneAutomaticBackups } from "../../lib/db/pre-upgrade-backup";
import { resetEnvCache } from "../../lib/env";
import { failingFolder, releaseFolder } from "./migration-folders";

/**
 * An upgrade of the embedded default: start-up backs the data dir up before it applies pending
 * migrations, and a migration that fails half-way leaves the database exactly as the previous
 * release wrote it, so that release still starts on it.
 */

/** The release before migration 0007 (workspace members, which drops users.role). */
const PREVIOUS = 6;
type Query = (text: string) => Promise<Record<string, unknown>[]>;

async function fingerprint(query: Query) {
  return {
    columns: await query("select table_name, column_name, data_type from information_schema.columns where table_schema = 'public' order by 1, 2"),
    users: await query("select * from users order by id"),
    migrations: await query("select hash, created_at::text from drizzle.__drizzle_migrations order by id"),
  };
}

const seedUsers = `insert into users (email, password_hash, role, created_at) values ('a@easel.test', 'h1', 'admin', now()), ('b@easel.test', 'h2', 'admin', now())`;

function pgliteQuery(pg: PGlite): Query {
  return async (text) => (await pg.query<Record<string, unknown>>(text)).rows;
}

const newDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "easel-upgrade-"));
const backupsOf = (dataDir: string) => (fs.existsSync(path.join(dataDir, "backups")) ? fs.readdirSync(path.join(dataDir, "backups")) : []);

let template: string;

/** A data dir as the previous release left it: made once (a new PGlite cluster costs seconds), copied per test. */
async function previousReleaseDataDir(): Promise<string> {
  if (!template) {
    template = newDir();
    const pg = await PGlite.create({ dataDir: path.join(template, "pg") });
    await migratePgliteDb(drizzlePglite(pg), { dataDir: template, migrationsFolder: releaseFolder(PREVIOUS) });
    await pg.exec(seedUsers);
    await pg.close();
  }
  const dataDir = newDir();
  fs.cpSync(template, dataDir, { recursive: true });
  return dataDir;
}

afterEach(() => {
  delete process.env.EASEL_UPGRADE_BACKUP;
  resetEnvCache();
});

describe("upgrading the embedded database", () => {
  it("a new data dir is migrated without a backup", async () => {
    const dataDir = await previousReleaseDataDir();
    expect(backupsOf(dataDir)).toEqual([]);
  });

  it("backs up first; a migration failing half-way changes nothing, and the previous release and the backup still open", async () => {
    const dataDir = await previousReleaseDataDir();
    let pg = await PGlite.create({ dataDir: path.join(dataDir, "pg") });
    const before = await fingerprint(pgliteQuery(pg));
    expect(before.migrations).toHaveLength(PREVIOUS + 1);

    await expect(migratePgliteDb(drizzlePglite(pg), { dataDir, migrationsFolder: failingFolder(PREVIOUS) })).rejects.toThrow();
    const backups = backupsOf(dataDir);
    expect(backups).toHaveLength(1);
    expect(backups[0]).toMatch(/^pre-upgrade-\d{8}T\d{6}Z-0007_workspace-members\.tar$/);
    // Same session, after the failure: 0007 (which drops users.role) and the first half of the broken one are gone too.
    expect(await fingerprint(pgliteQuery(pg))).toEqual(before);
    await pg.close();

    // The previous build starts on it: its migrations find nothing to do, its data reads back.
    pg = await PGlite.create({ dataDir: path.join(dataDir, "pg") });
    await migratePgliteDb(drizzlePglite(pg), { dataDir, migrationsFolder: releaseFolder(PREVIOUS) });
    expect(await fingerprint(pgliteQuery(pg))).toEqual(before);
    await pg.close();

    // The automatic backup restores to the same database.
    const restored = path.join(newDir(), "restored");
    await restoreArchive(path.join(dataDir, "backups", backups[0]), restored, undefined, { key: await dataDirBackupKey(dataDir) });
    const copy = await PGlite.create({ dataDir: path.join(restored, "pg") });
    expect(await fingerprint(pgliteQuery(copy))).toEqual(before);
    await copy.close();
  });

  it("start-up (openDb) backs up an existing data dir with pending migrations, then migrates it", async () => {
    const dataDir = await previousReleaseDataDir();
    const handle = await openDb({ dataDir, role: "server" });
    try {
      const [backup] = backupsOf(dataDir);
      expect(backup).toMatch(/^pre-upgrade-.*-0007_workspace-members\.tar$/);
      expect(fs.statSync(path.join(dataDir, "backups", backup)).size).toBeGreaterThan(1024 * 1024);
      const pg = (handle.db as unknown as { $client: PGlite }).$client;
      const users = await pg.query<{ email: string; is_owner: boolean }>("select email, is_owner from users order by email");
      expect(users.rows).toEqual([
        { email: "a@easel.test", is_owner: true },
        { email: "b@easel.test", is_owner: true },
      ]);
    } finally {
      await handle.close();
    }
    // Up to date: the next start takes no backup.
    const again = await openDb({ dataDir, role: "server" });
    await again.close();
    expect(backupsOf(dataDir)).toHaveLength(1);
  });

  it("EASEL_UPGRADE_BACKUP=off migrates without a backup", async () => {
    const dataDir = await previousReleaseDataDir();
    process.env.EASEL_UPGRADE_BACKUP = "off";
    resetEnvCache();
    const pg = await PGlite.create({ dataDir: path.join(dataDir, "pg") });
    await migratePgliteDb(drizzlePglite(pg), { dataDir, migrationsFolder: migrationsFolder() });
    const { rows } = await pg.query("select 1 from drizzle.__drizzle_migrations");
    await pg.close();
    expect(rows.length).toBeGreaterThan(PREVIOUS + 1);
    expect(backupsOf(dataDir)).toEqual([]);
  });

  it("keeps the newest three automatic backups and leaves the operator's files alone", async () => {
    const folder = newDir();
    const names = ["20261101T000000Z", "20261102T000000Z", "20261103T000000Z", "20261104T000000Z", "20261105T000000Z"].map((t) => `pre-upgrade-${t}-0007_x.tar`);
    for (const name of [...names, "mine.tar", "pre-upgrade-notes.txt"]) fs.writeFileSync(path.join(folder, name), "x");
    expect(await pruneAutomaticBackups(folder)).toEqual(names.slice(0, 2));
    expect(fs.readdirSync(folder).sort()).toEqual([...names.slice(2), "mine.tar", "pre-upgrade-notes.txt"].sort());
  });
});

describe.runIf(inject("testDatabase").kind === "postgres")("upgrading PostgreSQL", () => {
  it("a migration failing half-way changes nothing and the previous release still migrates", async () => {
    const target = inject("testDatabase") as { kind: "postgres"; url: string };
    const admin = postgres(target.url, { onnotice: () => undefined, max: 1 });
    const name = `easel_upgrade_fail_${process.pid}_${Date.now().toString(36)}`;
    await admin.unsafe(`create database ${name}`);
    const url = new URL(target.url);
    url.pathname = `/${name}`;
    const client = postgres(url.toString(), { onnotice: () => undefined, max: 1 });
    try {
      const db = (await import("drizzle-orm/postgres-js")).drizzle(client);
      const query: Query = (text) => client.unsafe(text) as unknown as Promise<Record<string, unknown>[]>;
      await migratePostgres(db, { migrationsFolder: releaseFolder(PREVIOUS) });
      await client.unsafe(seedUsers);
      const before = await fingerprint(query);
      await expect(migratePostgres(db, { migrationsFolder: failingFolder(PREVIOUS) })).rejects.toThrow();
      expect(await fingerprint(query)).toEqual(before);
      await migratePostgres(db, { migrationsFolder: releaseFolder(PREVIOUS) });
      expect(await fingerprint(query)).toEqual(before);
    } finally {
      await client.end({ timeout: 5 });
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 5 });
    }
  });
});
