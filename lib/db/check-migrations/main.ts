import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { checkMigrations, type Allowed, type Migration } from "./check";
import { parseReleaseSchema } from "./release-schema";
import { recordedReleases } from "./releases";

/**
 * CI's migration discipline check (.ci/run, after the drift check): the migrations new since the
 * previous release (the last commit in releases.json, or EASEL_PREVIOUS_RELEASE) against what that
 * release's code reads. Exits 1 with one line per problem.
 */
const root = process.cwd();
const git = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });

type Journal = { entries: { tag: string; when: number }[] };

function migrationsAt(read: (file: string) => string): Migration[] {
  const journal = JSON.parse(read("drizzle/meta/_journal.json")) as Journal;
  return journal.entries.map((e) => ({ tag: e.tag, when: e.when, sql: read(`drizzle/${e.tag}.sql`) }));
}

const previous = process.env.EASEL_PREVIOUS_RELEASE || recordedReleases(root).at(-1)!.commit;
try {
  git("cat-file", "-e", `${previous}^{commit}`);
} catch {
  console.error(`check-migrations: the previous release ${previous} is not in this clone's history (a shallow clone? fetch it with git fetch --unshallow)`);
  process.exit(1);
}
const schemaFiles = git("ls-tree", "-r", "--name-only", previous, "--", "lib/db/schema")
  .split("\n")
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));
if (schemaFiles.length === 0) {
  console.error(`check-migrations: ${previous} has no lib/db/schema to compare with`);
  process.exit(1);
}
const current = migrationsAt((file) => fs.readFileSync(path.join(root, file), "utf8"));
const before = migrationsAt((file) => git("show", `${previous}:${file}`));
const problems = checkMigrations({
  current,
  previous: before,
  previousSchema: parseReleaseSchema(schemaFiles.map((f) => git("show", `${previous}:${f}`))),
  allowed: JSON.parse(fs.readFileSync(path.join(root, "lib/db/check-migrations/allowed.json"), "utf8")) as Allowed[],
});
const released = new Set(before.map((m) => m.tag));
const fresh = current.filter((m) => !released.has(m.tag)).map((m) => m.tag);
console.log(`check-migrations: previous release ${previous.slice(0, 10)}; new since: ${fresh.join(", ") || "none"}`);
for (const p of problems) console.error(`  ${p}`);
if (problems.length) {
  console.error(`check-migrations: ${problems.length} problem(s); see docs/architecture.md, "Migrations: expand, then contract"`);
  process.exit(1);
}
console.log("check-migrations: every new migration keeps the previous release working");
