import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { prepared } from "../db/prepared";
import { apiTokens, workspaces, type ApiToken, type Workspace } from "../db/schema";
import { queryRows, type DbOrTx } from "../db/types";
import type { RateState } from "./rate-limit";

/**
 * The rate-limit counter that every app node on one PostgreSQL shares (contract §10, "Limits
 * across nodes"; docs/scaling.md): one row per bucket in the UNLOGGED table `rate_limit_windows`,
 * counted by one atomic upsert per request, so a token's budget is the sum over all nodes.
 *
 * Why not rate-limiter-flexible's PostgreSQL store: it talks the node-postgres API
 * (`client.query({name, text, values})`, a `pg` Pool or Client, Sequelize or Knex), not
 * postgres.js, Easel's driver; it creates its own table at run time, outside drizzle/'s
 * migrations; and it stamps windows with each node's own clock. Here the statement is Easel's,
 * the table comes from a migration, and every window is timed by the database's clock.
 *
 * Fixed windows, as in memory: a bucket's window opens with its first request and lasts a minute;
 * the first request after it ends opens the next. Refused requests count too (as in memory), so a
 * caller that keeps hammering stays refused until the window ends, not until it slows down.
 */
export const WINDOW_SECONDS = 60;

const WINDOW = sql.raw(`interval '${WINDOW_SECONDS} seconds'`);

/** At most one sweep of ended windows per node per this interval, started by a request and not awaited by it. */
const SWEEP_INTERVAL_MS = 60_000;

type SweepState = { lastMs: number };
const sweepState: SweepState = ((globalThis as { __easelRateSweep?: SweepState }).__easelRateSweep ??= { lastMs: 0 });

/**
 * Counts one request of `bucket` and answers the window's state. One statement, so one round trip
 * (it is a named prepared statement on postgres.js): PostgreSQL's `ON CONFLICT DO UPDATE` locks
 * the bucket's row, so concurrent requests on any nodes are counted one after another and each
 * sees a distinct count; exactly `limit` of them see a count within the limit.
 *
 * `now` replaces the database's clock (tests roll windows over with it); production passes none.
 */
export async function consumeShared(db: DbOrTx, bucket: string, limit: number, now?: Date): Promise<RateState> {
  const at = sql`coalesce(${now?.toISOString() ?? null}::timestamptz, now())`;
  const rows = await queryRows<{ count: number; reset_seconds: number }>(db, countingUpsert(sql`values (${bucket}, ${at}, 1)`, at));
  return stateOf(rows[0].count, rows[0].reset_seconds, limit);
}

/**
 * The one counting statement: an upsert of the rows `source` yields as (bucket, window_start, 1),
 * answering each bucket's count in its window and the seconds until the window ends.
 */
function countingUpsert(source: SQL, at: SQL): SQL {
  return sql`insert into rate_limit_windows as w (bucket, window_start, count)
        ${source}
        on conflict (bucket) do update set
          window_start = case when w.window_start <= excluded.window_start - ${WINDOW} then excluded.window_start else w.window_start end,
          count = case when w.window_start <= excluded.window_start - ${WINDOW} then 1 else w.count + 1 end
        returning count, ceil(extract(epoch from w.window_start + ${WINDOW} - ${at}))::int as reset_seconds`;
}

function stateOf(countValue: number, resetValue: number, limit: number): RateState {
  const count = Number(countValue);
  const resetSeconds = Math.min(WINDOW_SECONDS, Math.max(0, Number(resetValue)));
  return { limit, remaining: Math.max(0, limit - count), resetSeconds, limited: count > limit };
}

export type CountedApiToken = { token: ApiToken; workspace: Workspace; state: RateState };

/**
 * Finds the live API token whose hash is `tokenHash`, with its workspace, and counts the request
 * against the token's bucket (`api:<id>`, the bucket lib/auth/principal.ts's principalKey names)
 * in the same statement: one round trip where finding and counting would take two, on the path
 * every API client's every request takes. An unknown or revoked token matches no row and counts
 * nothing (the caller then counts against the client address, as for any failed sign-in).
 */
export async function findApiTokenAndCount(db: DbOrTx, tokenHash: string, limit: number): Promise<CountedApiToken | null> {
  const query = prepared(db, "live_api_token_counted", (d) => {
    const counted = d
      .$with("counted", { count: sql<number>`count`.as("count"), resetSeconds: sql<number>`reset_seconds`.as("reset_seconds") })
      .as(
        countingUpsert(
          sql`select 'api:' || ${apiTokens.id}, now(), 1 from ${apiTokens}
              where ${apiTokens.tokenHash} = ${sql.placeholder("hash")} and ${apiTokens.revokedAt} is null`,
          sql`now()`,
        ),
      );
    return d
      .with(counted)
      .select({ token: apiTokens, workspace: workspaces, count: counted.count, resetSeconds: counted.resetSeconds })
      .from(apiTokens)
      .innerJoin(workspaces, eq(workspaces.id, apiTokens.workspaceId))
      .leftJoin(counted, sql`true`)
      .where(and(eq(apiTokens.tokenHash, sql.placeholder("hash")), isNull(apiTokens.revokedAt)))
      .limit(1)
      .prepare("live_api_token_counted");
  });
  const [row] = await query.execute({ hash: tokenHash });
  if (!row) return null;
  // Both reads of the token see the statement's one snapshot: a token found was also counted.
  if (row.count === null || row.resetSeconds === null) throw new Error("live_api_token_counted found a token without counting it");
  return { token: row.token, workspace: row.workspace, state: stateOf(row.count, row.resetSeconds, limit) };
}

/** Deletes the rows of windows that have ended (a bucket seen again simply opens a new row). Answers how many. */
export async function sweepRateWindows(db: DbOrTx, now?: Date): Promise<number> {
  const at = sql`coalesce(${now?.toISOString() ?? null}::timestamptz, now())`;
  const rows = await queryRows<{ n: number }>(
    db,
    sql`with gone as (delete from rate_limit_windows where window_start <= ${at} - ${WINDOW} returning 1)
        select count(*)::int as n from gone`,
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Whether this node's turn to sweep has come (at most once a minute). The table needs no index
 * on `window_start` for it: it holds only the buckets of the last minute or two, and an index
 * would make every window roll-over a non-HOT update.
 */
export function sweepDue(nowMs = Date.now()): boolean {
  if (nowMs - sweepState.lastMs < SWEEP_INTERVAL_MS) return false;
  sweepState.lastMs = nowMs;
  return true;
}
