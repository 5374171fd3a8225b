import type { DbOrTx } from "../../../db";

/**
 * The executor's hot statements (an event's insert, a claim, a checkpoint, a settle) as SQL text
 * with positional parameters, run on the database driver under the handle's Drizzle session:
 * building them with Drizzle's `sql` costs more of the process's CPU than the round trip. Each
 * parameter carries its SQL type as a cast (`$3::text::jsonb`: JSON goes as text and is cast by
 * the database), so both drivers send the same values. On PostgreSQL, texts of a bounded shape
 * are prepared once per connection (postgres.js keeps them by text): later runs skip the parse
 * on both sides. Drizzle's logger sees every statement, as it sees its own.
 */
export class Statement {
  readonly params: unknown[] = [];

  /** A parameter, as `$n::type` (type e.g. "text", "int", "text::jsonb", "text::timestamptz"). */
  p(value: unknown, type: string): string {
    this.params.push(value === undefined ? null : value);
    return `$${this.params.length}::${type}`;
  }

  json(value: unknown): string {
    return this.p(value === undefined ? null : JSON.stringify(value), "text::jsonb");
  }

  at(date: Date): string {
    return this.p(date.toISOString(), "text::timestamptz");
  }
}

type PostgresJs = { unsafe: (text: string, params: unknown[], options: { prepare: boolean }) => Promise<unknown[]> };
type Pglite = { query: (text: string, params: unknown[]) => Promise<{ rows: unknown[] }> };
type Session = { client: PostgresJs | Pglite; logger?: { logQuery: (text: string, params: unknown[]) => void } };

/** Runs a statement on the handle's driver (a database or a transaction); `prepare` on PostgreSQL when its text comes in few shapes. */
export async function runStatement<T>(db: DbOrTx, text: string, params: unknown[], prepare: boolean): Promise<T[]> {
  const session = (db as unknown as { session: Session }).session;
  session.logger?.logQuery(text, params);
  const client = session.client;
  if ("unsafe" in client && typeof client.unsafe === "function") return (await client.unsafe(text, params, { prepare })) as T[];
  return (await (client as Pglite).query(text, params)).rows as T[];
}
