import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { WireServer } from "./wire-server";

let pg: PGlite;
let wire: WireServer;
let sql: postgres.Sql;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-wire-"));

beforeAll(async () => {
  pg = await PGlite.create();
  await pg.exec("create table t (id serial primary key, v text not null)");
  wire = new WireServer(pg);
  const address = await wire.listen({ path: path.join(dir, "pg.sock") });
  sql = postgres({ path: address, max: 4, prepare: false, onnotice: () => undefined });
});

afterAll(async () => {
  await sql.end();
  await wire.close();
  await pg.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it("serves socket clients interleaved with in-process queries and transactions", async () => {
  const work: Promise<unknown>[] = [];
  for (let i = 0; i < 100; i++) {
    work.push(sql`insert into t (v) values (${`socket-${i}`})`);
    work.push(pg.query("insert into t (v) values ($1)", [`local-${i}`]));
    if (i % 10 === 0) {
      work.push(
        pg.transaction(async (tx) => {
          await tx.query("insert into t (v) values ('tx-a')");
          await new Promise((r) => setTimeout(r, 5));
          await tx.query("insert into t (v) values ('tx-b')");
        }),
      );
    }
  }
  await Promise.all(work);
  const [{ n }] = await sql`select count(*)::int as n from t`;
  expect(n).toBe(220);
});

it("never runs a socket statement inside an in-process transaction that rolls back", async () => {
  const before = (await sql`select count(*)::int as n from t`)[0].n;
  const rolledBack = pg.transaction(async (tx) => {
    await tx.query("insert into t (v) values ('doomed')");
    await new Promise((r) => setTimeout(r, 50));
    await tx.rollback();
  });
  await new Promise((r) => setTimeout(r, 10));
  const socketInsert = sql`insert into t (v) values ('survivor')`;
  await Promise.all([rolledBack, socketInsert]);
  const rows = await sql`select v from t where v in ('doomed', 'survivor')`;
  expect(rows.map((r) => r.v)).toEqual(["survivor"]);
  expect((await sql`select count(*)::int as n from t`)[0].n).toBe(before + 1);
});

it("reports SQL errors to the socket client and keeps serving", async () => {
  await expect(sql`select * from no_such_table`).rejects.toThrow(/no_such_table/);
  expect((await sql`select 1 + 1 as two`)[0].two).toBe(2);
});

it("keeps a socket client's unnamed statement from its Describe to its Execute, whatever runs in process meanwhile", async () => {
  // postgres.js without named statements asks a parameterized query's types first (Parse, Describe,
  // Sync), then binds and runs it (Bind, Execute, Sync): the unnamed statement must survive between
  // the two, while the app's own queries (unnamed statements too) keep coming.
  const failures: unknown[] = [];
  let stop = false;
  const local = (async () => {
    for (let k = 0; !stop; k++) {
      await pg.query("select $1::text as local, $2::int as k", [`local-${k}`, k]).catch((err) => failures.push(err));
      await new Promise((r) => setImmediate(r));
    }
  })();
  const work: Promise<unknown>[] = [];
  for (let i = 0; i < 300; i++) {
    work.push(sql`select ${i}::int + 1 as n, ${`x${i}`}::text as s`.then(([row]) => expect(row).toEqual({ n: i + 1, s: `x${i}` })).catch((err) => failures.push(err)));
  }
  await Promise.all(work);
  stop = true;
  await local;
  expect(failures).toEqual([]);
}, 60_000);
