import { releaseReads, type ReleaseSchema } from "./release-schema";
import { riskyChanges, type RiskyChange } from "./risky-changes";

export type Migration = { tag: string; when: number; sql: string };
export type Allowed = { migration: string; target: string; reason: string };
export type MigrationCheckInput = {
  /** The journal now, in order, with each file's SQL. */
  current: Migration[];
  /** The previous release's journal and SQL. */
  previous: Migration[];
  previousSchema: ReleaseSchema;
  allowed: Allowed[];
};

const targetOf = (c: RiskyChange) => (c.column ? `${c.table}.${c.column}` : c.table);

/**
 * Expand, then contract a release later: a migration new since the previous release may not drop,
 * rename, retype or tighten anything that release still reads or writes, because during a rolling
 * upgrade (and after a roll back to its build) that release runs on the migrated database.
 * Also refused: a released migration edited (databases that applied it never see the edit) and a
 * journal whose times do not increase (drizzle skips a migration older than the newest applied).
 * Returns one line per problem; none means the migrations keep the previous release working.
 */
export function checkMigrations(input: MigrationCheckInput): string[] {
  const problems: string[] = [];
  const released = new Map(input.previous.map((m) => [m.tag, m]));
  for (const allow of input.allowed) {
    if (!allow.reason?.trim()) problems.push(`allow-list entry ${allow.migration} ${allow.target} has no reason`);
  }
  for (const [i, m] of input.current.entries()) {
    if (i > 0 && m.when <= input.current[i - 1].when) {
      problems.push(`${m.tag}: its journal time (${m.when}) is not after ${input.current[i - 1].tag}'s (${input.current[i - 1].when}); databases past that one would never apply it`);
    }
  }
  for (const old of input.previous) {
    const now = input.current.find((m) => m.tag === old.tag);
    if (!now) problems.push(`${old.tag}: shipped in the previous release but gone from the journal`);
    else if (now.sql !== old.sql) problems.push(`${old.tag}: shipped in the previous release and edited since; databases that applied it never run the edit: add a new migration instead`);
  }
  for (const m of input.current.filter((c) => !released.has(c.tag))) {
    for (const change of riskyChanges(m.sql)) {
      const readByPrevious = releaseReads(input.previousSchema, change.table, change.kind === "add not null column without default" ? undefined : change.column);
      if (!readByPrevious) continue;
      const target = targetOf(change);
      if (input.allowed.some((a) => a.migration === m.tag && a.target === target && a.reason?.trim())) continue;
      problems.push(
        `${m.tag}: ${change.kind} ${target}, which the previous release still ${change.kind.startsWith("add") ? "inserts into" : "reads"} ("${change.statement.slice(0, 120)}"). ` +
          `Expand now and contract in the release after, or list it in lib/db/check-migrations/allowed.json with a reason`,
      );
    }
  }
  return problems;
}
