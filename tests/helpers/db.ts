import fs from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import postgres from "postgres";
import { afterAll, inject } from "vitest";
import type { Db } from "../../lib/db";
import { postgresDb } from "../../lib/db/client";
import { migratePostgresDb } from "../../lib/db/migrate";
import * as schema from "../../lib/db/schema";

export type TestDb = { db: Db; kind: "pglite" | "postgres"; pg?: PGlite };

let current: Promise<TestDb> | null = null;
let closeCurrent: (() => Promise<unknown>) | null = null;

// Registered at import: vitest ignores an afterAll registered from inside a running hook, and
// testDb() is usually first called from a beforeAll.
afterAll(async () => {
  await closeCurrent?.();
});

/**
 * The migrated database of this test file (one per file; closed after the file). On PostgreSQL the
 * files share one database unless `isolated`: a file that compares whole tables before and after a
 * request (the fuzzer) gets a database of its own, made and dropped for it.
 */
export function testDb(opts: { isolated?: boolean } = {}): Promise<TestDb> {
  current ??= open(opts.isolated ?? false);
  return current;
}

async function open(isolated: boolean): Promise<TestDb> {
  const target = inject("testDatabase");
  if (target.kind === "postgres" && isolated) {
    const admin = postgres(target.url, { onnotice: () => undefined, max: 1 });
    const name = `easel_test_${process.pid}_${Date.now().toString(36)}`;
    await admin.unsafe(`create database ${name}`);
    const url = new URL(target.url);
    url.pathname = `/${name}`;
    const client = postgres(url.toString(), { onnotice: () => undefined, max: 10 });
    const db = postgresDb(client);
    await migratePostgresDb(db as never);
    closeCurrent = async () => {
      await client.end({ timeout: 5 });
      await admin.unsafe(`drop database if exists ${name}`);
      await admin.end({ timeout: 5 });
    };
    return { db, kind: "postgres" };
  }
  if (target.kind === "postgres") {
    const client = postgres(target.url, { onnotice: () => undefined, max: 10 });
    closeCurrent = () => client.end({ timeout: 5 });
    return { db: postgresDb(client), kind: "postgres" };
  }
  const blob = new Blob([fs.readFileSync(target.dump)]);
  const pg = await PGlite.create({ loadDataDir: blob });
  closeCurrent = () => pg.close();
  return { db: drizzlePglite(pg, { schema }) as unknown as Db, kind: "pglite", pg };
}
