import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { easel } from "./helpers";

// Contract §10: on PostgreSQL there is no embedded data dir to archive; `backup` exits 2 and says
// what to use instead (it decides before connecting anywhere).
it("backup on PostgreSQL exits 2 and points to pg_dump and the bucket's own replication", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-pg-backup-"));
  try {
    const url = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/easel";
    const r = await easel(dir, ["backup", path.join(dir, "b.tar")], { DATABASE_URL: url });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/pg_dump/);
    expect(r.stderr).toMatch(/bucket's own replication/);
    expect(fs.readdirSync(dir)).toEqual([]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);
