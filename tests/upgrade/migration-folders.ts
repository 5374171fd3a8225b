import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { migrationsFolder } from "../../lib/db/migrate";

type Journal = { entries: { idx: number; when: number; tag: string; version: string; breakpoints: boolean }[] };

function readJournal(): Journal {
  return JSON.parse(fs.readFileSync(path.join(migrationsFolder(), "meta/_journal.json"), "utf8")) as Journal;
}

/** A migrations folder holding this repository's migrations up to `lastIdx`: what an earlier release shipped. */
export function releaseFolder(lastIdx: number): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-release-"));
  fs.mkdirSync(path.join(dir, "meta"));
  const journal = readJournal();
  journal.entries = journal.entries.filter((e) => e.idx <= lastIdx);
  fs.writeFileSync(path.join(dir, "meta/_journal.json"), JSON.stringify(journal));
  for (const e of journal.entries) fs.copyFileSync(path.join(migrationsFolder(), `${e.tag}.sql`), path.join(dir, `${e.tag}.sql`));
  return dir;
}

/**
 * The migrations up to `lastIdx + 1`, then one more whose first statements succeed and whose last
 * one fails: a release whose upgrade breaks half-way through.
 */
export function failingFolder(lastIdx: number): string {
  const dir = releaseFolder(lastIdx + 1);
  const journal = JSON.parse(fs.readFileSync(path.join(dir, "meta/_journal.json"), "utf8")) as Journal;
  const last = journal.entries[journal.entries.length - 1];
  const tag = `${String(last.idx + 1).padStart(4, "0")}_fails-half-way`;
  journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1000, tag });
  fs.writeFileSync(path.join(dir, "meta/_journal.json"), JSON.stringify(journal));
  const statements = [
    `ALTER TABLE "users" ADD COLUMN "upgrade_probe" text;`,
    `UPDATE "users" SET "upgrade_probe" = 'written';`,
    `CREATE TABLE "upgrade_probe_table" ("id" integer PRIMARY KEY);`,
    `SELECT 1 / (SELECT count(*) FROM "upgrade_probe_table");`,
  ];
  fs.writeFileSync(path.join(dir, `${tag}.sql`), statements.join("\n--> statement-breakpoint\n"));
  return dir;
}
