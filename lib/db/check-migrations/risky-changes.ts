/**
 * The statements of a migration that can break the release before it while both run on one
 * database (a rolling upgrade, or a roll back to the previous build after the migration ran): what
 * that release reads or writes stops existing, changes meaning, or starts refusing its inserts.
 */
export type RiskyKind = "drop table" | "rename table" | "drop column" | "rename column" | "change column type" | "set not null" | "add not null column without default";

export type RiskyChange = { kind: RiskyKind; table: string; column?: string; statement: string };

/** An optionally schema-qualified, optionally quoted name; captures the last part. */
const NAME = String.raw`(?:"?\w+"?\.)?"?(\w+)"?`;

/** Splits on commas outside parentheses and quotes: the actions of one ALTER TABLE. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "," && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts.filter(Boolean);
}

/** The statements of a drizzle-kit migration file, without comments, whitespace collapsed. */
export function statementsOf(sqlText: string): string[] {
  const withoutComments = sqlText.replace(/--> statement-breakpoint/g, ";").replace(/--[^\n]*/g, "");
  return withoutComments
    .split(";")
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter(Boolean);
}

function alterActions(table: string, action: string, statement: string): RiskyChange[] {
  const at = (kind: RiskyKind, column?: string): RiskyChange[] => [{ kind, table, column, statement }];
  let m: RegExpMatchArray | null;
  if (/^DROP CONSTRAINT\b/i.test(action)) return [];
  if ((m = action.match(new RegExp(String.raw`^DROP (?:COLUMN )?(?:IF EXISTS )?"?(\w+)"?`, "i")))) return at("drop column", m[1]);
  if (/^RENAME CONSTRAINT\b/i.test(action)) return [];
  if (/^RENAME TO\b/i.test(action)) return at("rename table");
  if ((m = action.match(/^RENAME (?:COLUMN )?"?(\w+)"? TO\b/i))) return at("rename column", m[1]);
  if ((m = action.match(/^ALTER (?:COLUMN )?"?(\w+)"? (?:SET DATA )?TYPE\b/i))) return at("change column type", m[1]);
  if ((m = action.match(/^ALTER (?:COLUMN )?"?(\w+)"? SET NOT NULL\b/i))) return at("set not null", m[1]);
  if ((m = action.match(/^ADD (?:COLUMN )?(?:IF NOT EXISTS )?"?(\w+)"? (.*)$/i)) && !/^(CONSTRAINT|PRIMARY|UNIQUE|FOREIGN|CHECK)$/i.test(m[1])) {
    const definition = m[2];
    if (/\bNOT NULL\b/i.test(definition) && !/\bDEFAULT\b|\bGENERATED\b/i.test(definition)) return at("add not null column without default", m[1]);
  }
  return [];
}

/** Every risky change in one migration's SQL. A NOT NULL set with a default in the same migration is not one. */
export function riskyChanges(sqlText: string): RiskyChange[] {
  const found: RiskyChange[] = [];
  const defaults = new Set<string>();
  for (const statement of statementsOf(sqlText)) {
    let m: RegExpMatchArray | null;
    if ((m = statement.match(/^DROP TABLE (?:IF EXISTS )?(.+?)(?: CASCADE| RESTRICT)?$/i))) {
      for (const name of splitTopLevel(m[1])) {
        const table = name.match(new RegExp(`^${NAME}$`))?.[1];
        if (table) found.push({ kind: "drop table", table, statement });
      }
    } else if ((m = statement.match(new RegExp(String.raw`^ALTER TABLE (?:IF EXISTS )?(?:ONLY )?${NAME} (.+)$`, "i")))) {
      const table = m[1];
      for (const action of splitTopLevel(m[2])) {
        const setDefault = action.match(/^ALTER (?:COLUMN )?"?(\w+)"? SET DEFAULT\b/i);
        if (setDefault) defaults.add(`${table}.${setDefault[1]}`);
        found.push(...alterActions(table, action, statement));
      }
    }
  }
  return found.filter((c) => !(c.kind === "set not null" && defaults.has(`${c.table}.${c.column}`)));
}
