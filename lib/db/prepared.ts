import type { DbOrTx } from "./types";

const built = new WeakMap<object, Map<string, unknown>>();

/**
 * A query built once per database handle and reused: building a Drizzle query (walking the
 * schema objects, rendering SQL) costs more CPU than the row mapping of a one-row answer, and
 * the hottest reads run on every request. `build` must use placeholders (`sql.placeholder`) for
 * every value. Keyed by handle, so inside a transaction the query is built on the transaction
 * (never on the outer database, which would wait for the transaction on PGlite).
 */
export function prepared<Q>(db: DbOrTx, name: string, build: (db: DbOrTx) => Q): Q {
  let byName = built.get(db);
  if (!byName) built.set(db, (byName = new Map()));
  let query = byName.get(name) as Q | undefined;
  if (!query) byName.set(name, (query = build(db)));
  return query;
}
