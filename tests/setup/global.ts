import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { TestProject } from "vitest/node";
import { migratePgliteDb, migratePostgresDb } from "../../lib/db/migrate";

/**
 * Prepares the database every test file uses. On Postgres (TEST_DATABASE_URL or DATABASE_URL):
 * migrate it once; files share it and isolate by creating their own workspaces. On PGlite: build
 * one migrated instance, dump it, and let each file load the dump (a fresh instance costs ~5 s;
 * loading a dump costs well under one).
 */
export default async function setup(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (url) {
    const client = postgres(url, { onnotice: () => undefined, max: 1 });
    await migratePostgresDb(drizzlePostgres(client));
    await client.end();
    project.provide("testDatabase", { kind: "postgres", url });
    return;
  }
  const pg = await PGlite.create();
  await migratePgliteDb(drizzlePglite(pg));
  const dump = await pg.dumpDataDir("none");
  await pg.close();
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "easel-test-")), "template.tar");
  fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  project.provide("testDatabase", { kind: "pglite", dump: file });
  return () => fs.rmSync(path.dirname(file), { recursive: true, force: true });
}

declare module "vitest" {
  export interface ProvidedContext {
    testDatabase: { kind: "postgres"; url: string } | { kind: "pglite"; dump: string };
  }
}
