/**
 * Running built Easel nodes as separate processes, for bench/scale, bench/memory, bench/startup and
 * tests/scale: start a build as `npm start` does on a port with an environment of its own, wait for its
 * first 200, stop it, run the admin CLI against the same database, and put a round-robin proxy in
 * front of several nodes.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import path from "node:path";

export const repoRoot = path.resolve(import.meta.dirname, "../..");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The server entry `npm start` runs (Next.js in-process, the object store's routes answered directly). */
export const SERVER_ENTRY = "lib/server/start.mjs";

/** The directory holding a `next build` (`.next/BUILD_ID`): EASEL_APP_DIR, else this checkout. */
export function builtAppDir(): string {
  const dir = path.resolve(process.env.EASEL_APP_DIR ?? repoRoot);
  if (!fs.existsSync(path.join(dir, ".next", "BUILD_ID"))) {
    throw new Error(`no build in ${dir}: run \`npm run build\` there, or set EASEL_APP_DIR to a built checkout`);
  }
  return dir;
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export type EaselNode = { child: ChildProcess; port: number; origin: string; env: NodeJS.ProcessEnv; log: () => string; startedAt: number };

/**
 * Spawns the server entry of the build in `appDir` in a process group of its own (so stopping it stops
 * anything it spawned). `env` is added to this process's environment (EASEL_WORKERS=1 unless it says otherwise).
 */
export function startNode(appDir: string, env: Record<string, string | undefined>, port: number): EaselNode {
  // A test runner's NODE_ENV=test and VITEST_* must not reach a production server.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "NODE_ENV" && !k.startsWith("VITEST")));
  // One process per node unless a caller asks for workers: each node here stands for one process.
  const full = { ...inherited, NEXT_TELEMETRY_DISABLED: "1", PORT: String(port), EASEL_WORKERS: "1", ...env } as unknown as NodeJS.ProcessEnv;
  for (const [k, v] of Object.entries(full)) if (v === undefined) delete full[k];
  const startedAt = performance.now();
  const child = spawn(process.execPath, [path.join(appDir, SERVER_ENTRY), "-p", String(port), "-H", "127.0.0.1"], {
    cwd: appDir,
    env: full,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  const keep = (d: Buffer) => (out = (out + d.toString()).slice(-20_000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return { child, port, origin: `http://127.0.0.1:${port}`, env: full, log: () => out, startedAt };
}

/**
 * Polls `pathname` until it answers 200; returns the milliseconds since the node was spawned.
 * A fetch refused while the port is not yet open is retried every 20 ms.
 */
export async function waitFor200(node: EaselNode, pathname = "/v1/openapi.json", headers: Record<string, string> = {}, timeoutMs = 120_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (node.child.exitCode !== null) throw new Error(`the node on port ${node.port} exited (${node.child.exitCode}):\n${node.log()}`);
    try {
      const r = await fetch(`${node.origin}${pathname}`, { headers });
      await r.arrayBuffer();
      if (r.status === 200) return performance.now() - node.startedAt;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`no 200 from ${node.origin}${pathname} within ${timeoutMs} ms:\n${node.log()}`);
    await sleep(20);
  }
}

export async function stopNode(node: EaselNode): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  try {
    process.kill(-node.child.pid!, "SIGTERM");
  } catch {
    return;
  }
  for (let i = 0; i < 100 && node.child.exitCode === null && node.child.signalCode === null; i++) await sleep(100);
  if (node.child.exitCode === null && node.child.signalCode === null) {
    try {
      process.kill(-node.child.pid!, "SIGKILL");
    } catch {}
  }
}

/** The admin CLI (`npm run easel -- …`) with `env`; resolves to its last line of output. */
export function cli(env: Record<string, string | undefined>, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--import", "tsx", "lib/cli/main.ts", ...args], { cwd: repoRoot, env: { ...process.env, ...env } as NodeJS.ProcessEnv }, (err, stdout, stderr) => {
      if (err) reject(new Error(`easel ${args.join(" ")}: ${stderr || err.message}`));
      else resolve(stdout.trim().split("\n").at(-1)!);
    });
  });
}

export type Proxy = { origin: string; port: number; close: () => Promise<void>; counts: number[] };

/**
 * A minimal round-robin HTTP reverse proxy: request i goes to target i mod N, streamed both ways,
 * with X-Forwarded-For/-Host/-Proto set as a load balancer would. `counts[i]` is how many requests
 * target i received.
 */
export async function startProxy(targets: string[], port = 0): Promise<Proxy> {
  const agents = targets.map(() => new http.Agent({ keepAlive: true, maxSockets: 256 }));
  const counts = targets.map(() => 0);
  let next = 0;
  const server = http.createServer((req, res) => {
    const i = next++ % targets.length;
    counts[i]++;
    const target = new URL(targets[i]);
    const headers = { ...req.headers, "x-forwarded-for": req.socket.remoteAddress ?? "127.0.0.1", "x-forwarded-host": req.headers.host ?? "", "x-forwarded-proto": "http" };
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: agents[i] }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.rawHeaders as unknown as http.OutgoingHttpHeaders);
      up.pipe(res);
    });
    upstream.on("error", (err) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`proxy: ${err.message}`);
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actual = (server.address() as net.AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${actual}`,
    port: actual,
    counts,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      for (const a of agents) a.destroy();
    },
  };
}

/**
 * A database of its own on the PostgreSQL server `serverUrl` points at (any database on it), so a
 * run never sees another run's rows; `drop` removes it (closing connections still open to it).
 */
export async function scratchDatabase(serverUrl: string, tag: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const { default: postgres } = await import("postgres");
  const name = `easel_${tag}_${Date.now()}_${process.pid}`.replace(/[^a-z0-9_]/g, "_");
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const a = postgres(serverUrl, { max: 1, onnotice: () => undefined });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}

/** A JSON call to the API; rejects on any answer but 2xx. */
export async function api(origin: string, token: string, method: string, pathname: string, body?: unknown): Promise<{ status: number; body: any }> /* eslint-disable-line @typescript-eslint/no-explicit-any -- each caller reads the fields of the route it called */ {
  const r = await fetch(`${origin}${pathname}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await r.json().catch(() => null);
  if (!r.ok) throw new Error(`${method} ${pathname} → ${r.status} ${JSON.stringify(json)}`);
  return { status: r.status, body: json };
}
