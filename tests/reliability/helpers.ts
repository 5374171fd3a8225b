import { sql } from "drizzle-orm";
import type { Db } from "../../lib/db";
import { queryRows } from "../../lib/db/types";

/**
 * A fingerprint of everything a request could change: for every table, its row count and a hash
 * of its contents. Only counted: api_tokens (authentication stamps last_used_at on any
 * authenticated request). Left out: idempotency_keys (a POST with an Idempotency-Key remembers its
 * answer, 4xx included, by design, so the same key replays it — contract §1) and rate_limit_windows
 * (on PostgreSQL every request counts itself against its token or address, refused ones included,
 * by design: docs/scaling.md).
 */
const COUNT_ONLY = new Set(["api_tokens"]);
const SKIPPED = new Set(["idempotency_keys", "rate_limit_windows"]);

export async function stateSnapshotter(db: Db) {
  const tables = (await queryRows<{ table_name: string }>(db, sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`)).map((r) => r.table_name).filter((t) => !SKIPPED.has(t));
  const parts = tables.map((t) => {
    const id = `"${t.replace(/"/g, '""')}"`;
    const content = COUNT_ONLY.has(t) ? "''" : `coalesce(md5(string_agg(x::text, '|' order by x::text)), '')`;
    return `'${t}', (select count(*)::text || ':' || ${content} from ${id} x)`;
  });
  const query = sql.raw(`select json_build_object(${parts.join(", ")}) as s`);
  return {
    tables,
    /**
     * The next transaction id the database will assign: any INSERT, UPDATE or DELETE (committed or
     * not) takes one, reads do not. Unchanged across a request → the request wrote nothing; a
     * cheap first check before a full snapshot.
     */
    async nextXid(): Promise<string> {
      const [row] = await queryRows<{ x: string }>(db, sql`select pg_snapshot_xmax(pg_current_snapshot())::text as x`);
      return row.x;
    },
    async snapshot(): Promise<Record<string, string>> {
      const [row] = await queryRows<{ s: Record<string, string> | string }>(db, query);
      return typeof row.s === "string" ? JSON.parse(row.s) : row.s;
    },
  };
}

/** What differs between two snapshots, as table names. */
export function changedTables(a: Record<string, string>, b: Record<string, string>): string[] {
  return Object.keys({ ...a, ...b }).filter((k) => a[k] !== b[k]);
}

/** The contract's error envelope (§1): {"errors":[{"message": string, "extensions": {"code": string}}]}. */
export function envelopeProblem(status: number, text: string): string | null {
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return `status ${status} with a body that is not JSON: ${text.slice(0, 120)}`;
  }
  const e = body?.errors;
  if (!Array.isArray(e) || e.length < 1) return `status ${status} without an errors array`;
  for (const item of e) {
    if (typeof item?.message !== "string") return `status ${status}: an error without a message`;
    if (typeof item?.extensions?.code !== "string") return `status ${status}: an error without extensions.code`;
  }
  if (/\bat .+\.(ts|js):\d+/.test(text)) return `status ${status}: a stack trace in the body`;
  return null;
}
