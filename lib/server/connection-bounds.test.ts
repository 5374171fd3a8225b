import http from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { maxConnectionsPerAddressFromEnv } from "./connections-per-address.mjs";
import { createEaselServer } from "./http-server.mjs";
import { raiseOpenFileLimit, openFileLimitsOf } from "./open-file-limit.mjs";

/**
 * EASEL_MAX_CONNECTIONS_PER_ADDRESS in Easel's HTTP server: a client address past its bound has
 * every request but the health probes refused at once, in the protocol of the path, with
 * Retry-After and the connection closed; a closed connection gives its place back.
 */
let server: http.Server | undefined;
const sockets: net.Socket[] = [];

afterEach(async () => {
  sockets.splice(0).forEach((s) => s.destroy());
  if (!server) return;
  const closing = server;
  server = undefined;
  closing.closeAllConnections();
  await new Promise((r) => closing.close(r));
});

async function start(overrides: Record<string, unknown>) {
  // The app behind the server: answers 200 to every request once its body has ended.
  server = createEaselServer(async (req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200).end("app"));
  }, overrides);
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return (server.address() as net.AddressInfo).port;
}

/** A raw connection from `localAddress`, with whatever it has received so far. */
async function connect(port: number, localAddress: string) {
  const socket = net.connect({ port, host: "127.0.0.1", localAddress });
  sockets.push(socket);
  let received = "";
  socket.on("data", (d) => (received += d.toString("latin1")));
  socket.on("error", () => undefined); // a refused connection is closed by the server: expected here
  await new Promise((r) => socket.once("connect", r));
  const closed = new Promise((r) => socket.once("close", r));
  return { socket, received: () => received, closed };
}

const waitFor = async (check: () => boolean, ms = 3_000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** Headers and the start of a body that would be 4 MB: the slow client of the attack. */
const slowPut = (path: string, extra = "") => `PUT ${path} HTTP/1.1\r\nhost: x\r\ncontent-length: 4000000\r\n${extra}\r\nx`;

describe("connections per client address", () => {
  it("reads EASEL_MAX_CONNECTIONS_PER_ADDRESS (default 256) and refuses a value that is no positive integer", () => {
    expect(maxConnectionsPerAddressFromEnv(undefined)).toBe(256);
    expect(maxConnectionsPerAddressFromEnv("12")).toBe(12);
    expect(() => maxConnectionsPerAddressFromEnv("0")).toThrow(/EASEL_MAX_CONNECTIONS_PER_ADDRESS/);
    expect(() => maxConnectionsPerAddressFromEnv("lots")).toThrow(/EASEL_MAX_CONNECTIONS_PER_ADDRESS/);
  });

  it("past the bound: S3 503 SlowDown, GCS 429, /v1 429 rate_limited, each with Retry-After and Connection: close, at once; health still answered", async () => {
    const port = await start({ maxConnectionsPerAddress: 3, trustProxyHops: 0 });
    const held = await Promise.all([1, 2, 3].map(() => connect(port, "127.0.0.7")));
    held.forEach((c) => c.socket.write(slowPut("/v1/acme/boards")));
    const cases: [string, RegExp, RegExp][] = [
      ["/storage/s3/bucket/ws/1/originals/a", /^HTTP\/1\.1 503 /, /<Code>SlowDown<\/Code>/],
      ["/storage/gcs/bucket/ws/1/originals/a?upload_id=abc", /^HTTP\/1\.1 429 /, /<Code>SlowDown<\/Code>/],
      ["/v1/acme/boards", /^HTTP\/1\.1 429 /, /"code":"rate_limited"/],
    ];
    for (const [path, status, body] of cases) {
      const over = await connect(port, "127.0.0.7");
      const sent = Date.now();
      over.socket.write(slowPut(path));
      await over.closed;
      expect(Date.now() - sent).toBeLessThan(1_000);
      expect(over.received()).toMatch(status);
      expect(over.received()).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(over.received()).toMatch(/\r\nconnection: close\r\n/i);
      expect(over.received()).toMatch(body);
    }
    const probe = await connect(port, "127.0.0.7");
    probe.socket.write("GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n");
    await waitFor(() => probe.received().includes("\r\n\r\n"));
    expect(probe.received()).toMatch(/^HTTP\/1\.1 200 /);
    // Another address is not affected.
    const other = await connect(port, "127.0.0.8");
    other.socket.write("PUT /v1/x HTTP/1.1\r\nhost: x\r\ncontent-length: 1\r\n\r\nx");
    await waitFor(() => other.received().includes("app"));
    expect(other.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it("a closed connection gives its place back (once)", async () => {
    const port = await start({ maxConnectionsPerAddress: 2, trustProxyHops: 0 });
    const [a] = await Promise.all([connect(port, "127.0.0.9"), connect(port, "127.0.0.9")]);
    a.socket.destroy();
    await a.closed;
    await new Promise((r) => setTimeout(r, 50));
    const again = await connect(port, "127.0.0.9");
    again.socket.write("PUT /v1/x HTTP/1.1\r\nhost: x\r\ncontent-length: 1\r\n\r\nx");
    await waitFor(() => again.received().includes("\r\n\r\n"));
    expect(again.received()).toMatch(/^HTTP\/1\.1 200 /);
    const third = await connect(port, "127.0.0.9");
    third.socket.write("GET /v1/x HTTP/1.1\r\nhost: x\r\n\r\n");
    await third.closed;
    expect(third.received()).toMatch(/^HTTP\/1\.1 429 /);
  });

  it("behind a trusted proxy, counts each forwarded client's requests in flight, not the proxy's connections", async () => {
    const port = await start({ maxConnectionsPerAddress: 2, trustProxyHops: 1 });
    const proxyConns = await Promise.all([1, 2, 3, 4].map(() => connect(port, "127.0.0.10")));
    proxyConns[0].socket.write(slowPut("/v1/a", "x-forwarded-for: 203.0.113.5\r\n"));
    proxyConns[1].socket.write(slowPut("/v1/a", "x-forwarded-for: 203.0.113.5\r\n"));
    proxyConns[2].socket.write(slowPut("/v1/a", "x-forwarded-for: 203.0.113.5\r\n"));
    proxyConns[3].socket.write("PUT /v1/a HTTP/1.1\r\nhost: x\r\ncontent-length: 1\r\nx-forwarded-for: 203.0.113.6\r\n\r\nx");
    await proxyConns[2].closed;
    expect(proxyConns[2].received()).toMatch(/^HTTP\/1\.1 429 /);
    await waitFor(() => proxyConns[3].received().includes("app"));
    expect(proxyConns[0].received()).toBe("");
  });
});

describe("open-file limit at start", () => {
  it("reads soft and hard limits", () => {
    expect(openFileLimitsOf("Max open files            1024                 20000                files")).toEqual({ soft: 1024, hard: 20000 });
  });

  it("raises the soft limit to the hard one with prlimit on this process", () => {
    const calls: string[][] = [];
    let limits = { soft: 1024, hard: 20000 };
    const result = raiseOpenFileLimit({
      run: (file, args) => {
        calls.push([file, ...args]);
        limits = { soft: 20000, hard: 20000 };
      },
      read: () => limits,
    });
    expect(calls).toEqual([["prlimit", "--pid", String(process.pid), "--nofile=20000:20000"]]);
    expect(result).toEqual({ before: { soft: 1024, hard: 20000 }, after: { soft: 20000, hard: 20000 } });
  });

  it("goes on with the soft limit when prlimit is missing or refused", () => {
    const result = raiseOpenFileLimit({
      run: () => {
        throw Object.assign(new Error("spawn prlimit ENOENT"), { code: "ENOENT" });
      },
      read: () => ({ soft: 1024, hard: 4096 }),
    });
    expect(result.after).toEqual({ soft: 1024, hard: 4096 });
  });

  it("really raises a child's limit with the system's prlimit", async () => {
    const { spawn } = await import("node:child_process");
    const child = spawn("sleep", ["5"], { stdio: "ignore" });
    try {
      const { execFileSync } = await import("node:child_process");
      execFileSync("prlimit", ["--pid", String(child.pid), "--nofile=512:20000"]);
      const fs = await import("node:fs");
      const before = openFileLimitsOf(fs.readFileSync(`/proc/${child.pid}/limits`, "utf8"));
      expect(before).toEqual({ soft: 512, hard: 20000 });
      execFileSync("prlimit", ["--pid", String(child.pid), "--nofile=20000:20000"]);
      expect(openFileLimitsOf(fs.readFileSync(`/proc/${child.pid}/limits`, "utf8"))).toEqual({ soft: 20000, hard: 20000 });
    } finally {
      child.kill();
    }
  });
});
