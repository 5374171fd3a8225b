import { env } from "../env";
import { openDb, type DbHandle } from "./client";

export type { Db, DbOrTx, Tx } from "./types";
export { isSingleSession, queryRows } from "./types";

type Holder = { __easelDb?: Promise<DbHandle> };
const holder = globalThis as Holder;

/**
 * The server process's database, opened once per process. Cached on globalThis because Next.js
 * loads route bundles and instrumentation as separate module graphs in one process.
 */
export function serverDb(): Promise<DbHandle> {
  if (process.env.NEXT_PHASE === "phase-production-build") {
    // A build must never open (and lock) the data dir a server owns or is about to own.
    return Promise.reject(new Error("the database is not opened during `next build`"));
  }
  holder.__easelDb ??= openDb({ databaseUrl: env().DATABASE_URL, dataDir: env().dataDir, role: "server" }).catch((err) => {
    holder.__easelDb = undefined;
    throw err;
  });
  return holder.__easelDb;
}
