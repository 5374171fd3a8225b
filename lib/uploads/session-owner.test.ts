import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * lib/uploads/session.ts owns the upload_sessions table: the claim-once and expire-once
 * guarantees hold only while every write is one of its guarded updates. This scan fails when any
 * other file writes the table, through Drizzle's table object or in SQL text.
 */
const root = path.resolve(import.meta.dirname, "../..");
const OWNER = "lib/uploads/session.ts";
/** This file quotes the forms it looks for. */
const SELF = "lib/uploads/session-owner.test.ts";
const SCHEMA = "lib/db/schema/";
const SOURCE_DIRS = ["app", "lib", "tests", "bench", "e2e"];
const SOURCE_FILE = /\.(ts|tsx|mts|mjs|js)$/;

function sourceFiles(): string[] {
  const files: string[] = [];
  for (const dir of SOURCE_DIRS) {
    for (const entry of fs.readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !SOURCE_FILE.test(entry.name)) continue;
      const rel = path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join("/");
      if (!rel.split("/").includes("node_modules")) files.push(rel);
    }
  }
  for (const entry of fs.readdirSync(root)) if (SOURCE_FILE.test(entry)) files.push(entry);
  return files;
}

const isTest = (file: string) => /\.test\.tsx?$/.test(file) || file.startsWith("tests/") || file.startsWith("e2e/");

/** Drizzle writes name the table object: `.insert(uploadSessions)`, `.update(schema.uploadSessions)`, `.delete(uploadSessions)`. */
const DRIZZLE_WRITE = /\.\s*(insert|update|delete)\s*\(\s*(?:[\w$]+\s*\.\s*)?uploadSessions\b/;
/** SQL text, quoted or schema-qualified: `insert into upload_sessions`, `UPDATE "upload_sessions"`, `delete from public.upload_sessions`. */
const SQL_WRITE = /\b(insert\s+into|update|delete\s+from|truncate(\s+table)?)\s+(?:"?public"?\.)?"?upload_sessions\b/i;

/** What a file does to the table that only the owner may do. */
function offences(file: string, text: string): string[] {
  const found: string[] = [];
  if (DRIZZLE_WRITE.test(text)) found.push("writes it through Drizzle");
  if (SQL_WRITE.test(text)) found.push("writes it in SQL");
  // Production code does not even hold the table object: a write could hide behind an alias.
  if (!isTest(file) && !file.startsWith(SCHEMA) && /\buploadSessions\b/.test(text)) found.push("uses the table object");
  return found;
}

describe("upload_sessions has one writer", () => {
  it(`no file but ${OWNER} writes it (Drizzle or SQL), and no production file but it holds the table object`, () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(100);
    const bad = files
      .filter((f) => f !== OWNER && f !== SELF)
      .flatMap((f) => offences(f, fs.readFileSync(path.join(root, f), "utf8")).map((o) => `${f} ${o}`));
    expect(bad).toEqual([]);
  });

  it("the scan recognises the owner's writes and the forms another module could use", () => {
    const owner = fs.readFileSync(path.join(root, OWNER), "utf8");
    expect(offences("lib/uploads/elsewhere.ts", owner)).toEqual(["writes it through Drizzle", "uses the table object"]);
    const samples = [
      "await tx.insert(uploadSessions).values(row)",
      "db.update( schema.uploadSessions ).set({ status: 'expired' })",
      "await db.delete(uploadSessions)",
      "sql`UPDATE upload_sessions SET status = 'expired'`",
      'await client.query(`delete from "upload_sessions" where id = $1`)',
      "insert into public.upload_sessions (handle) values ('x')",
    ];
    for (const sample of samples) expect(offences("tests/helpers/sample.ts", sample), sample).not.toEqual([]);
    // Reading is anyone's: tests check a session's state this way.
    expect(offences("tests/api/sample.test.ts", "await db.select().from(uploadSessions).where(eq(uploadSessions.id, 1))")).toEqual([]);
    expect(offences("tests/api/sample.test.ts", "select status from upload_sessions where id = 1")).toEqual([]);
  });
});
