import net from "node:net";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

/**
 * The PostgreSQL driver (postgres.js 3.4.9) buffers a small write for the next tick. When the
 * connection closed first, that buffered write ran on a connection without a socket: an uncaught
 * TypeError from a timer, which ends the process, or it stayed buffered and was sent ahead of the
 * next query on the reconnected connection, so answers crossed between queries (an API token
 * lookup answered with another statement's empty result read as 401). Easel applies a fix at
 * install (patches/postgres+3.4.9.patch, docs/reliability.md); this file proves it holds.
 *
 * 8 clients each run a query whose answer names the client and the iteration, plus transactions,
 * through a TCP proxy (the close then arrives as the server sees it, as behind any proxy or
 * pooler), while every session of the database is terminated 20 times. Every answer must be the
 * asker's own or an error; nothing may be thrown outside a query; no query may hang.
 */
const target = inject("testDatabase");
const onPostgres = target.kind === "postgres";

let admin: postgres.Sql;
let sql: postgres.Sql;
let proxy: net.Server;
const proxied = new Set<net.Socket>();
const name = `easel_pgterm_${process.pid}_${Date.now().toString(36)}`;
const escaped: unknown[] = [];
const onEscape = (err: unknown) => void escaped.push(err);

beforeAll(async () => {
  if (!onPostgres) return;
  process.on("uncaughtException", onEscape);
  admin = postgres(target.url, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name}`);
  proxy = net.createServer((client) => {
    const upstream = net.connect(Number(new URL(target.url).port || 5432), new URL(target.url).hostname);
    for (const s of [client, upstream]) {
      proxied.add(s);
      s.on("error", () => undefined); // the peer's close is the fault under test
      s.on("close", () => {
        proxied.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  const url = new URL(target.url);
  url.host = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
  url.pathname = `/${name}`;
  // The pool as Easel opens it (lib/db/client.ts): named statements, short backoff.
  sql = postgres(url.toString(), { max: 10, connect_timeout: 10, onnotice: () => undefined, backoff: (n) => Math.min(0.05 * 2 ** n, 1) });
  await sql.unsafe("create table notes (id serial primary key, title text not null)");
});

afterAll(async () => {
  if (!onPostgres) return;
  process.off("uncaughtException", onEscape);
  await sql?.end({ timeout: 5 });
  for (const s of proxied) s.destroy();
  await new Promise<void>((r) => proxy.close(() => r()));
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.end({ timeout: 5 });
});

describe.skipIf(!onPostgres)("sessions terminated while queries and transactions run", () => {
  it("every answer is the asker's own or an error, nothing escapes, nothing hangs", async () => {
    let running = true;
    let own = 0;
    let failed = 0;
    const crossed: string[] = [];
    const worker = async (w: number) => {
      for (let i = 0; running; i++) {
        const tag = `${w}-${i}`;
        try {
          const rows = await sql.unsafe("select $1::text as tag", [tag], { prepare: true });
          if (rows.length === 1 && rows[0].tag === tag) own++;
          else crossed.push(`${tag} got ${JSON.stringify(rows)}`);
          if (i % 2) {
            await sql.begin(async (tx) => {
              await tx.unsafe("insert into notes (title) values ($1)", [tag], { prepare: true });
              await tx.unsafe("select count(*) from notes where title = $1", [tag], { prepare: true });
            });
          } else {
            await sql.unsafe("select id, title from notes order by id desc limit $1", [5], { prepare: true });
          }
        } catch {
          failed++; // a terminated session's query fails: expected, counted below
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const workers = Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
    for (let round = 0; round < 20; round++) {
      await new Promise((r) => setTimeout(r, 250));
      await admin.unsafe(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`);
    }
    running = false;
    const settled = await Promise.race([workers.then(() => true), new Promise((r) => setTimeout(() => r(false), 15_000))]);
    expect(settled).toBe(true);
    expect(escaped.map(String)).toEqual([]);
    expect(crossed).toEqual([]);
    expect(failed).toBeGreaterThan(0); // the fault was real
    expect(own).toBeGreaterThan(100);
    await new Promise((r) => setTimeout(r, 500)); // the last round's closes reach the pool
    const afterResults: string[] = [];
    for (let k = 0; k < 30; k++) afterResults.push(await sql.unsafe("select 'ok' as answer").then((r) => r[0].answer, (e) => `${e.code} ${e.message}`));
    // A connection may still hand its last session's termination to the first query after
    // (57P01, which Easel answers 503 database_unavailable); then the pool serves again.
    expect(afterResults.filter((a) => a !== "ok" && !a.startsWith("57P01 ") && !a.startsWith("CONNECTION_CLOSED "))).toEqual([]);
    expect(afterResults.slice(10)).toEqual(Array(20).fill("ok"));
  }, 60_000);
});
