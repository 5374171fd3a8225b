import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * lib/members owns workspace_memberships and workspace_invitations: single use of an invitation
 * and one membership per person and workspace hold only while every write is one of its
 * statements. This scan fails when a file elsewhere writes either table (Drizzle or SQL text).
 */
const root = path.resolve(import.meta.dirname, "../..");
const OWNER_DIR = "lib/members/";
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
  return files;
}

const DRIZZLE_WRITE = /\.\s*(insert|update|delete)\s*\(\s*(?:[\w$]+\s*\.\s*)?(memberships|invitations)\b/;
const SQL_WRITE = /\b(insert\s+into|update|delete\s+from|truncate(\s+table)?)\s+(?:"?public"?\.)?"?workspace_(memberships|invitations)\b/i;

function offences(text: string): string[] {
  const found: string[] = [];
  if (DRIZZLE_WRITE.test(text)) found.push("writes it through Drizzle");
  if (SQL_WRITE.test(text)) found.push("writes it in SQL");
  return found;
}

describe("memberships and invitations have one owner", () => {
  it(`no file outside ${OWNER_DIR} writes them`, () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(100);
    const bad = files.filter((f) => !f.startsWith(OWNER_DIR)).flatMap((f) => offences(fs.readFileSync(path.join(root, f), "utf8")).map((o) => `${f} ${o}`));
    expect(bad).toEqual([]);
  });

  it("the scan recognises the owner's writes and the forms another module could use", () => {
    for (const file of ["revoke-invitation.ts", "accept-invitation.ts"]) {
      expect(offences(fs.readFileSync(path.join(root, OWNER_DIR, file), "utf8")), file).toEqual(["writes it through Drizzle"]);
    }
    // An invitation made by a person is written only while they are an admin (one conditional INSERT).
    expect(offences(fs.readFileSync(path.join(root, OWNER_DIR, "create-invitation.ts"), "utf8"))).toEqual(["writes it through Drizzle", "writes it in SQL"]);
    // Membership changes and the revocations they cause are one SQL statement each.
    for (const file of ["add-member.ts", "remove-member.ts", "change-role.ts", "access-made-by.ts"]) {
      expect(offences(fs.readFileSync(path.join(root, OWNER_DIR, file), "utf8")), file).toEqual(["writes it in SQL"]);
    }
    for (const sample of ["await tx.insert(memberships).values(row)", "db.update( schema.invitations ).set({ usedAt })", "sql`DELETE FROM workspace_memberships`", 'update "workspace_invitations" set used_at = now()']) {
      expect(offences(sample), sample).not.toEqual([]);
    }
    expect(offences("await db.select().from(memberships).where(eq(memberships.userId, 1))")).toEqual([]);
  });
});
