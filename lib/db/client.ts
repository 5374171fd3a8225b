import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { releaseBackupLeftovers } from "../backup/serve-backup"; // also offers `backup` on the control channel
import { collectStartupGarbage, openAsServer, openAsTool } from "./embedded/open";
import { migratePgliteDb, migratePostgresDb } from "./migrate";
import * as schema from "./schema";
import type { Db } from "./types";

export type DbHandle = { db: Db; driver: "postgres" | "pglite" | "pglite-wire"; close: () => Promise<void> };

/**
 * The pool's behaviour when the server goes away (docs/reliability.md, "PostgreSQL lost under
 * load"): a query on a connection that dies fails at once and the connection is dropped; the next
 * query opens a new one. Opening one gives up after 10 s (postgres.js waits 30 s by default).
 * Between failed attempts postgres.js waits a backoff shared by the whole pool, by default
 * growing as 3^n / 100 s up to 20 s: after a few seconds of refused connections every query
 * queued behind it waited 10-19 s, after the database was back. Capped at 1 s, a request during
 * an outage fails within about a second (503 database_unavailable) and the first one after it
 * is served.
 */
const POOL = {
  onnotice: () => undefined,
  connect_timeout: 10,
  backoff: (attempt: number) => Math.min(0.05 * 2 ** attempt, 1),
} as const;

/**
 * Drizzle asks postgres.js for unnamed statements, and postgres.js sends an unnamed statement
 * with parameters as two round trips (describe it, then bind and execute). Named, they are
 * described once per connection and then cost one round trip: every read of the API does two to
 * four of them, so on a busy node this halves the database waits. Queries without parameters
 * keep the simple protocol (postgres.js picks it when there are no arguments), so migrations'
 * multi-statement scripts run as before. The set of statements is bounded by the code's query
 * shapes; postgres.js re-prepares a statement that a schema change invalidated.
 */
function preparedByDefault(sql: postgres.Sql): postgres.Sql {
  return new Proxy(sql, {
    get(target, prop) {
      if (prop === "unsafe") {
        return (query: string, args?: unknown[], options?: postgres.UnsafeQueryOptions) =>
          target.unsafe(query, args as never, { ...options, prepare: true });
      }
      if (prop === "begin" || prop === "savepoint") {
        const open = Reflect.get(target, prop) as (...a: unknown[]) => unknown;
        return (...a: unknown[]) => {
          const body = a.pop() as (tx: postgres.Sql) => unknown;
          return open(...a, (tx: postgres.Sql) => body(preparedByDefault(tx)));
        };
      }
      return Reflect.get(target, prop);
    },
  });
}

/** The app's database over a postgres.js client (the server's pool, or a test's). */
export function postgresDb(client: postgres.Sql): Db {
  return drizzlePostgres(preparedByDefault(client), { schema }) as unknown as Db;
}

function connectPostgres(options: string | postgres.Options<Record<string, never>>): DbHandle {
  const client =
    typeof options === "string"
      ? postgres(options, { ...POOL, max: 10 })
      : postgres({ ...options, ...POOL });
  const db = postgresDb(client);
  return { db, driver: "postgres", close: () => client.end({ timeout: 5 }) };
}

/** "path:/x/pg.sock" or "127.0.0.1:5433" as published in the data-dir lock. */
function socketOptions(address: string): postgres.Options<Record<string, never>> {
  const common = { database: "postgres", username: "postgres", max: 1, prepare: false } as const;
  if (address.startsWith("/")) return { ...common, path: address };
  const [host, port] = address.split(":");
  return { ...common, host, port: Number(port) };
}

/**
 * Opens the database: postgres.js when DATABASE_URL is set, else the embedded PGlite in the data
 * dir. A "server" owns the embedded dir; a "tool" (the CLI) goes through the owner's socket.
 * Migrations are applied on open (several nodes on one Postgres serialise on an advisory lock).
 */
export async function openDb(opts: { databaseUrl?: string; dataDir: string; role: "server" | "tool" }): Promise<DbHandle> {
  if (opts.databaseUrl) {
    const handle = connectPostgres(opts.databaseUrl);
    await migratePostgresDb(handle.db as never);
    return handle;
  }
  const embedded = opts.role === "server" ? await openAsServer(opts.dataDir) : await openAsTool(opts.dataDir);
  if (embedded.kind === "client") {
    // The owner has already migrated the database before publishing its socket.
    return { ...connectPostgres(socketOptions(embedded.address)), driver: "pglite-wire" };
  }
  const db = drizzlePglite(embedded.pg, { schema });
  await releaseBackupLeftovers(opts.dataDir);
  await migratePgliteDb(db as never, { dataDir: opts.dataDir });
  // Once the frames that opened and migrated it have returned, their garbage is unreachable.
  setTimeout(collectStartupGarbage, 1000).unref();
  await embedded.serve();
  return { db: db as unknown as Db, driver: "pglite", close: embedded.close };
}
