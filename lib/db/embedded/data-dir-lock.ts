import fs from "node:fs";
import path from "node:path";

/**
 * PGlite takes no lock on its data dir, and two processes opening one dir silently diverge and
 * lose data. Exactly one process owns the dir: it holds `easel.lock` (pid, role and the address
 * of the wire socket it serves the database on). Everyone else connects through that socket.
 */
export type LockInfo = { pid: number; role: "server" | "cli"; address: string | null; startedAt: string };

export const lockPath = (dataDir: string) => path.join(dataDir, "easel.lock");

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function readLock(dataDir: string): LockInfo | null {
  try {
    return JSON.parse(fs.readFileSync(lockPath(dataDir), "utf8")) as LockInfo;
  } catch {
    return null;
  }
}

/** The live holder of the dir, or null (a lock left by a dead process is removed). */
export function liveHolder(dataDir: string): LockInfo | null {
  const info = readLock(dataDir);
  if (!info) return null;
  if (isAlive(info.pid)) return info;
  fs.rmSync(lockPath(dataDir), { force: true });
  return null;
}

/** Creates the lock atomically (O_EXCL); false when another live process holds it. */
export function tryAcquire(dataDir: string, role: LockInfo["role"]): boolean {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lockPath(dataDir), "wx", 0o600);
      const info: LockInfo = { pid: process.pid, role, address: null, startedAt: new Date().toISOString() };
      fs.writeSync(fd, JSON.stringify(info));
      fs.closeSync(fd);
      process.once("exit", () => release(dataDir));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      if (liveHolder(dataDir)) return false;
    }
  }
  return false;
}

export function publishAddress(dataDir: string, address: string) {
  const info = readLock(dataDir);
  if (!info || info.pid !== process.pid) return;
  fs.writeFileSync(lockPath(dataDir), JSON.stringify({ ...info, address }), { mode: 0o600 });
}

export function release(dataDir: string) {
  const info = readLock(dataDir);
  if (info?.pid === process.pid) fs.rmSync(lockPath(dataDir), { force: true });
}
