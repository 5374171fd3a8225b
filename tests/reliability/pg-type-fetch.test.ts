import net from "node:net";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

/**
 * The PostgreSQL driver (postgres.js 3.4.9) reads the server's array types with a query of its own
 * on a connection's first connect. When the session was terminated during that query, its
 * rejection reached no one: an unhandled rejection (it failed a CI run of the terminate test). And
 * the connection, reconnected with no query waiting, never read the types again, so every array
 * it returned came back as unparsed text ("{a,b}"): a board view's `boards` a string, not a list.
 * Easel patches both at install (patches/postgres+3.4.9.patch, docs/reliability.md).
 *
 * A proxy in front of the server terminates the session (pg_terminate_backend, as an operator
 * or a failover would) at the moment the driver sends its type query, once.
 */
const target = inject("testDatabase");
const onPostgres = target.kind === "postgres";
const serverUrl = target.kind === "postgres" ? target.url : "";

let admin: postgres.Sql;
let proxy: net.Server;
const sockets = new Set<net.Socket>();
const escaped: unknown[] = [];
const onEscape = (err: unknown) => void escaped.push(err);
let terminations = 0;

beforeAll(async () => {
  if (!onPostgres) return;
  process.on("unhandledRejection", onEscape);
  admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  await admin`select 1`;
  const server = new URL(serverUrl);
  proxy = net.createServer((client) => {
    const upstream = net.connect(Number(server.port || 5432), server.hostname);
    let backendPid: number | null = null;
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    upstream.on("data", (chunk: Buffer) => {
      // BackendKeyData ('K', length 12): the session's process id.
      const at = chunk.indexOf(Buffer.from([0x4b, 0, 0, 0, 12]));
      if (backendPid === null && at >= 0) backendPid = chunk.readInt32BE(at + 5);
      client.write(chunk);
    });
    client.on("data", (chunk: Buffer) => {
      if (terminations === 0 && chunk.includes("typarray") && backendPid !== null) {
        terminations++;
        // A postgres.js query runs when it is awaited or then'd; its failure fails the test.
        admin`select pg_terminate_backend(${backendPid})`.then(
          () => undefined,
          (err: unknown) => void escaped.push(err),
        );
        return; // the type query never reaches the server; the session ends under it
      }
      upstream.write(chunk);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
});

afterAll(async () => {
  if (!onPostgres) return;
  process.off("unhandledRejection", onEscape);
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await admin.end({ timeout: 5 });
});

describe.skipIf(!onPostgres)("a session terminated while the driver reads the array types", () => {
  it("fails the waiting query with the termination, throws nothing outside it, and parses arrays after", async () => {
    const viaProxy = new URL(serverUrl);
    viaProxy.host = `127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
    const sql = postgres(viaProxy.toString(), { max: 1, onnotice: () => undefined });
    try {
      const first = await sql`select ${["a", "b"]}::text[] as xs`.then(
        () => null,
        (err: { code?: string }) => err.code,
      );
      expect(terminations).toBe(1);
      expect(first).toBe("57P01"); // admin_shutdown: the termination, told to the query that waited
      const [row] = await sql`select array['x', 'y']::text[] as ys`;
      expect(row.ys).toEqual(["x", "y"]);
      await new Promise((resolve) => setTimeout(resolve, 100)); // an unhandled rejection is reported on a later tick
      expect(escaped).toEqual([]);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
});
