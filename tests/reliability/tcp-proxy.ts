import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { openDb, type DbHandle } from "../../lib/db/client";

export type Proxy = { port: number; cut: () => Promise<void>; accept: () => Promise<void>; close: () => Promise<void>; open: () => number };

/** A TCP proxy to host:port whose connections can be cut and whose door can be shut and reopened. */
export async function tcpProxy(host: string, port: number): Promise<Proxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => undefined);
      s.on("close", () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const own = (server.address() as net.AddressInfo).port;
  return {
    port: own,
    open: () => sockets.size / 2,
    // Stop listening (new connections: ECONNREFUSED), then destroy every live connection.
    cut: async () => {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sockets) s.destroy();
      await closed;
    },
    accept: () => new Promise<void>((r) => server.listen(own, "127.0.0.1", r)),
    close: async () => {
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export type ProxiedDb = { handle: DbHandle; proxy: Proxy; admin: postgres.Sql; name: string; close: () => Promise<void> };

/**
 * A database made for the caller on the PostgreSQL server `serverUrl` points at, opened with
 * Easel's production pool (connect_timeout, max 10) and migrated through a TCP proxy the caller
 * can cut. `admin` talks to the server directly, not through the proxy. `close` reopens the proxy,
 * closes the pool and drops the database.
 */
export async function openBehindProxy(serverUrl: string, tag: string): Promise<ProxiedDb> {
  const base = new URL(serverUrl);
  const admin = postgres(serverUrl, { onnotice: () => undefined, max: 1 });
  const name = `easel_${tag}_${process.pid}_${Date.now().toString(36)}`;
  await admin.unsafe(`create database ${name}`);
  const proxy = await tcpProxy(base.hostname, Number(base.port || 5432));
  const viaProxy = new URL(serverUrl);
  viaProxy.host = `127.0.0.1:${proxy.port}`;
  viaProxy.pathname = `/${name}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `easel-${tag}-`));
  const handle = await openDb({ databaseUrl: viaProxy.toString(), dataDir, role: "server" });
  return {
    handle,
    proxy,
    admin,
    name,
    close: async () => {
      await proxy.accept().catch(() => undefined);
      await handle.close().catch(() => undefined);
      await proxy.close();
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end({ timeout: 5 });
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
