import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acquire, lockPath, newInstanceId, probeHolder, readLock, release, type LockInfo } from "./data-dir-lock";
import { openAsTool } from "./open";
import { WireServer } from "./wire-server";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-lock-"));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** An owner as open.ts makes one (socket first, then the lock), without opening PGlite. */
async function owner(dir: string) {
  const instance = newInstanceId();
  const wire = new WireServer(null, { instance, role: "server", dataDir: dir });
  const address = await wire.listen({ path: path.join(dir, `easel-${instance.slice(0, 12)}.sock`) });
  const result = await acquire(dir, { instance, pid: process.pid, role: "server", address });
  cleanups.push(() => wire.close());
  return { instance, wire, address, result };
}

function writeLock(dir: string, lock: Partial<LockInfo>) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(lockPath(dir), JSON.stringify({ instance: newInstanceId(), role: "server", startedAt: new Date().toISOString(), ...lock }));
}

function track(child: ChildProcess) {
  cleanups.push(() => child.kill("SIGKILL"));
  return child;
}

/** A loopback port nothing listens on (it was free a moment ago). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe("the data-dir lock proves its holder lives", () => {
  it("refuses a second owner while the first answers on its socket", async () => {
    const dir = tempDir();
    const first = await owner(dir);
    expect(first.result.acquired).toBe(true);
    const second = await owner(dir);
    expect(second.result).toMatchObject({ acquired: false, holder: { state: "live", lock: { instance: first.instance } } });
    expect(readLock(dir)?.instance).toBe(first.instance);
  });

  it("takes over a lock naming this very process's pid (a container restarting with the same pid)", async () => {
    const dir = tempDir();
    const stale = path.join(dir, "easel-000000000000.sock");
    fs.writeFileSync(stale, ""); // the dead owner's socket file, left behind
    writeLock(dir, { pid: process.pid, address: stale });
    const mine = await owner(dir);
    expect(mine.result.acquired).toBe(true);
    expect(readLock(dir)?.instance).toBe(mine.instance);
    expect(fs.existsSync(stale)).toBe(false);
  });

  it("takes over a lock whose pid now belongs to an unrelated live process", async () => {
    const dir = tempDir();
    const unrelated = track(spawn("sleep", ["30"], { stdio: "ignore" }));
    expect(() => process.kill(unrelated.pid!, 0)).not.toThrow();
    writeLock(dir, { pid: unrelated.pid!, address: `127.0.0.1:${await closedPort()}` });
    expect((await owner(dir)).result.acquired).toBe(true);
  });

  it("takes over a lock whose pid is a zombie", async () => {
    const dir = tempDir();
    // `sleep 0` exits at once; its parent execs into `sleep 30`, which never reaps it.
    const parent = track(spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 30"], { stdio: ["ignore", "pipe", "ignore"] }));
    const zombie = Number(await new Promise<string>((r) => parent.stdout!.once("data", (d: Buffer) => r(d.toString().trim()))));
    let state = "";
    for (let i = 0; i < 50 && state !== "Z"; i++) {
      await new Promise((r) => setTimeout(r, 20));
      state = fs.readFileSync(`/proc/${zombie}/stat`, "utf8").split(") ")[1]?.[0] ?? "";
    }
    expect(state).toBe("Z");
    writeLock(dir, { pid: zombie, address: path.join(dir, "easel-zombie00000.sock") });
    expect((await owner(dir)).result.acquired).toBe(true);
  });

  it("takes over a lock whose socket is answered by another instance (an address reused)", async () => {
    const dir = tempDir();
    const elsewhere = await owner(tempDir());
    writeLock(dir, { pid: process.pid, address: elsewhere.address });
    expect((await owner(dir)).result.acquired).toBe(true);
  });

  it("takes over a lock written before owners answered (no instance id, no socket)", async () => {
    const dir = tempDir();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(lockPath(dir), JSON.stringify({ pid: process.pid, role: "server", address: null, startedAt: "2026-01-01T00:00:00Z" }));
    expect((await owner(dir)).result.acquired).toBe(true);
  });

  it("lets exactly one of several processes racing for a stale lock win", async () => {
    const dir = tempDir();
    writeLock(dir, { pid: process.pid, address: path.join(dir, "easel-gone00000000.sock") });
    const results = await Promise.all([owner(dir), owner(dir), owner(dir), owner(dir)]);
    const winners = results.filter((r) => r.result.acquired);
    expect(winners).toHaveLength(1);
    expect(readLock(dir)?.instance).toBe(winners[0].instance);
    for (const loser of results.filter((r) => !r.result.acquired)) expect(loser.result).toMatchObject({ acquired: false, holder: { state: "live" } });
  });

  it("does not take over from a holder that accepts connections but does not answer, and the CLI says so within seconds", async () => {
    const dir = tempDir();
    const sockets: net.Socket[] = [];
    const wedged = net.createServer((s) => sockets.push(s)); // accepts, never answers
    const address = path.join(dir, "easel-wedged000000.sock");
    await new Promise<void>((r) => wedged.listen(address, r));
    cleanups.push(() => new Promise((r) => (sockets.forEach((s) => s.destroy()), wedged.close(r))));
    writeLock(dir, { pid: 4242, address });
    expect((await owner(dir)).result).toMatchObject({ acquired: false, holder: { state: "silent" } });
    const started = Date.now();
    await expect(openAsTool(dir)).rejects.toThrow(/does not answer/);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("releases only its own lock, and the released dir has no holder", async () => {
    const dir = tempDir();
    const mine = await owner(dir);
    release(dir, newInstanceId());
    expect(readLock(dir)?.instance).toBe(mine.instance);
    release(dir, mine.instance);
    expect(readLock(dir)).toBeNull();
    expect(fs.existsSync(mine.address)).toBe(false);
    expect((await probeHolder(dir)).state).toBe("gone");
  });
});
