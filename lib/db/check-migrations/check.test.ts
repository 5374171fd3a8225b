import { describe, expect, it } from "vitest";
import { checkMigrations, type Migration } from "./check";
import { parseReleaseSchema } from "./release-schema";
import { riskyChanges } from "./risky-changes";

const previousSchema = parseReleaseSchema([
  `export const users = pgTable("users", { id: integer("id").primaryKey(), email: text("email").notNull(), role: text("role") });
   export const boards = pgTable("boards", { id: integer("id"), name: text("name"), ...timestamps() });`,
  `export const timestamps = () => ({ createdAt: timestamp("created_at"), updatedAt: timestamp("updated_at") });`,
]);
const released: Migration[] = [{ tag: "0000_init", when: 1000, sql: `CREATE TABLE "users" ("id" integer);` }];
const check = (sql: string, allowed: { migration: string; target: string; reason: string }[] = []) =>
  checkMigrations({ current: [...released, { tag: "0001_next", when: 2000, sql }], previous: released, previousSchema, allowed });

describe("the migration discipline check", () => {
  it.each([
    [`ALTER TABLE "users" DROP COLUMN "role";`, /drop column users\.role/],
    [`DROP TABLE "boards" CASCADE;`, /drop table boards/],
    [`ALTER TABLE "public"."users" RENAME COLUMN "email" TO "address";`, /rename column users\.email/],
    [`ALTER TABLE users RENAME TO people;`, /rename table users/],
    [`ALTER TABLE "boards" ALTER COLUMN "name" SET DATA TYPE varchar(80);`, /change column type boards\.name/],
    [`ALTER TABLE "boards" ALTER COLUMN "created_at" TYPE date;`, /change column type boards\.created_at/],
    [`ALTER TABLE "users" ALTER COLUMN "role" SET NOT NULL;`, /set not null users\.role/],
    [`ALTER TABLE "users" ADD COLUMN "plan" text NOT NULL;`, /add not null column without default users\.plan/],
    [`ALTER TABLE "users" ADD COLUMN "x" int, DROP COLUMN IF EXISTS "role";`, /drop column users\.role/],
  ])("refuses %s", (sql, message) => {
    const problems = check(sql);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  it.each([
    `ALTER TABLE "users" ADD COLUMN "plan" text DEFAULT 'free' NOT NULL;`,
    `ALTER TABLE "users" ADD COLUMN "note" text;`,
    `CREATE TABLE "tags" ("id" integer NOT NULL);\n--> statement-breakpoint\nALTER TABLE "tags" ADD COLUMN "name" text NOT NULL;`,
    `ALTER TABLE "users" DROP CONSTRAINT "users_email_key";`,
    `ALTER TABLE "users" ALTER COLUMN "role" SET DEFAULT 'viewer';--> statement-breakpoint\nALTER TABLE "users" ALTER COLUMN "role" SET NOT NULL;`,
    `DROP TABLE "scratch";`,
    `ALTER TABLE "users" DROP COLUMN "never_declared";`,
    `-- ALTER TABLE "users" DROP COLUMN "role";\nSELECT 1;`,
  ])("accepts %s", (sql) => {
    expect(check(sql)).toEqual([]);
  });

  it("accepts a listed drop only with a reason", () => {
    const sql = `ALTER TABLE "users" DROP COLUMN "role";`;
    expect(check(sql, [{ migration: "0001_next", target: "users.role", reason: "role moved to memberships; the previous release already stopped reading it" }])).toEqual([]);
    expect(check(sql, [{ migration: "0001_next", target: "users.role", reason: " " }])).toEqual([
      "allow-list entry 0001_next users.role has no reason",
      expect.stringMatching(/drop column users\.role/),
    ]);
    expect(check(sql, [{ migration: "0002_other", target: "users.role", reason: "wrong migration" }])).toHaveLength(1);
  });

  it("refuses an edited released migration, a removed one and a journal time out of order", () => {
    const edited = checkMigrations({ current: [{ ...released[0], sql: `CREATE TABLE "users" ("id" bigint);` }], previous: released, previousSchema, allowed: [] });
    expect(edited).toEqual([expect.stringMatching(/0000_init: shipped in the previous release and edited since/)]);
    expect(checkMigrations({ current: [], previous: released, previousSchema, allowed: [] })).toEqual([expect.stringMatching(/gone from the journal/)]);
    const late = checkMigrations({ current: [...released, { tag: "0001_x", when: 999, sql: "" }], previous: released, previousSchema, allowed: [] });
    expect(late).toEqual([expect.stringMatching(/0001_x: its journal time \(999\) is not after 0000_init's/)]);
  });

  it("reads each ALTER TABLE action apart, commas inside parentheses included", () => {
    const changes = riskyChanges(`ALTER TABLE "boards" ADD COLUMN "x" numeric(10, 2) NOT NULL, ALTER COLUMN "name" TYPE text USING lower("name", 'a,b');`);
    expect(changes.map((c) => [c.kind, c.column])).toEqual([
      ["add not null column without default", "x"],
      ["change column type", "name"],
    ]);
  });
});
