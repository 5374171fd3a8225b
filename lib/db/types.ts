import type { SQL, ExtractTablesWithRelations } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from "drizzle-orm/pg-core";
import type * as schema from "./schema";

export type Schema = typeof schema;
/** The app's database, whichever driver is behind it (postgres.js or PGlite). */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Functions that may run inside a caller's transaction take this. Inside `db.transaction`, always use `tx`: on PGlite the outer `db` waits for the transaction and hangs. */
export type DbOrTx = Db | Tx;

/** `execute()` answers `{rows}` on PGlite and an array on postgres.js; this hides the difference. */
export async function queryRows<T>(db: DbOrTx, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown;
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

/**
 * True on the embedded database (PGlite): one session, so every statement runs alone and a
 * single statement needs no transaction or lock around it to see a consistent state. Its driver
 * also decodes some column types differently from postgres.js (bytea, for one).
 */
export function isSingleSession(db: DbOrTx): boolean {
  const client = (db as { $client?: { dumpDataDir?: unknown; exec?: unknown } }).$client;
  return typeof client?.dumpDataDir === "function" && typeof client.exec === "function";
}
