/**
 * What a release reads, from its Drizzle schema source (lib/db/schema/*.ts at that commit): each
 * `pgTable("name", { ... })` and the quoted column names inside it. Drizzle selects every column a
 * table declares, so a declared column is a read one. Names in shared helpers (`_columns.ts`, no
 * table of their own) count for every table: this errs towards calling a column read.
 */
export type ReleaseSchema = { tables: Map<string, Set<string>>; shared: Set<string> };

const COLUMN_NAME = /\b\w+\(\s*"(\w+)"/g;

export function parseReleaseSchema(files: string[]): ReleaseSchema {
  const tables = new Map<string, Set<string>>();
  const shared = new Set<string>();
  for (const source of files) {
    const starts = [...source.matchAll(/pgTable\(\s*"(\w+)"/g)];
    if (starts.length === 0) {
      for (const m of source.matchAll(COLUMN_NAME)) shared.add(m[1]);
      continue;
    }
    starts.forEach((start, i) => {
      const body = source.slice(start.index! + start[0].length, starts[i + 1]?.index ?? source.length);
      const columns = tables.get(start[1]) ?? new Set<string>();
      for (const m of body.matchAll(COLUMN_NAME)) columns.add(m[1]);
      tables.set(start[1], columns);
    });
  }
  return { tables, shared };
}

/** Whether the release reads this table, or this column of it. */
export function releaseReads(schema: ReleaseSchema, table: string, column?: string): boolean {
  const columns = schema.tables.get(table);
  if (!columns) return false;
  if (column === undefined) return true;
  return columns.has(column) || schema.shared.has(column);
}
