import fs from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, inject } from "vitest";
import * as schema from "../../lib/db/schema";
import type { Db } from "../../lib/db";

export type TestDb = { db: Db; kind: "pglite" | "postgres"; pg?: PGlite };

let current: Promise<TestDb> | null = null;
let closeCurrent: (() => Promise<unknown>) | null = null;

// Registered at import: vitest ignores an afterAll registered from inside a running hook, and
// testDb() is usually first called from a beforeAll.
afterAll(async () => {
  await closeCurrent?.();
});

/** The migrated database of this test file (one per file; closed after the file). */
export function testDb(): Promise<TestDb> {
  current ??= open();
  return current;
}

async function open(): Promise<TestDb> {
  const target = inject("testDatabase");
  if (target.kind === "postgres") {
    const client = postgres(target.url, { onnotice: () => undefined, max: 10 });
    closeCurrent = () => client.end({ timeout: 5 });
    return { db: drizzlePostgres(client, { schema }) as unknown as Db, kind: "postgres" };
  }
  const blob = new Blob([fs.readFileSync(target.dump)]);
  const pg = await PGlite.create({ loadDataDir: blob });
  closeCurrent = () => pg.close();
  return { db: drizzlePglite(pg, { schema }) as unknown as Db, kind: "pglite", pg };
}
