import type { DbOrTx } from "../../../db";

/**
 * True on the embedded database (PGlite): one session, so every statement runs alone and a
 * single statement needs no transaction or lock around it to see a consistent queue. On
 * PostgreSQL (several sessions, several nodes) the executor keeps its transactions and locks.
 */
export function isSingleSession(db: DbOrTx): boolean {
  const client = (db as { $client?: { dumpDataDir?: unknown; exec?: unknown } }).$client;
  return typeof client?.dumpDataDir === "function" && typeof client.exec === "function";
}
