/**
 * Whether an error means "the database could not be reached or went away", as opposed to a bug or
 * a refused statement: the connection was refused, reset, timed out or closed under a query
 * (postgres.js codes and socket errnos), or the server said it is shutting down or starting up
 * (SQLSTATE 57P01-57P03: what every client sees while PostgreSQL restarts), or any class 08
 * connection exception. Such a request failed cleanly and may be retried: the HTTP layer answers
 * 503 database_unavailable instead of 500. Drizzle wraps driver errors (DrizzleQueryError), so the
 * cause chain is followed.
 */
const CLIENT_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
]);
// 55P03 lock_not_available: only lib/boards/tree.ts sets a lock_timeout, for the tree lock, which a
// session lost in an outage can hold until the server notices; the client retries, as for the rest.
const SERVER_STATES = new Set(["57P01", "57P02", "57P03", "53300", "55P03"]);

export function isDatabaseUnavailable(err: unknown): boolean {
  return databaseErrorCode(err) !== null;
}

/** The code that made `err` a lost-database error (for the log line: never the query or its parameters), or null. */
export function databaseErrorCode(err: unknown): string | null {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== "string") continue;
    if (CLIENT_CODES.has(code) || SERVER_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return code;
  }
  return null;
}
