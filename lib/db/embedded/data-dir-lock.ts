import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { log } from "../../log/logger.mjs";
import { readJsonLine, sendControl } from "./control-protocol";

/**
 * PGlite takes no lock on its data dir, and two processes opening one dir silently diverge and
 * lose data. Exactly one process owns the dir: it holds `easel.lock`, which names a random
 * instance id and the socket the owner listens on (the database for other processes, and the
 * control channel). Everyone else connects through that socket.
 *
 * Whether the holder lives is proved, never inferred from a process id: the socket named in the
 * lock must answer `identify` with the lock's instance id. A process that is gone cannot answer
 * (the kernel closed its socket), whatever its pid now belongs to: another process, a zombie, or
 * the new server itself when a container restarts it with the same pid.
 */
export type LockInfo = {
  instance: string;
  pid: number;
  role: "server" | "cli";
  /** Where the owner listens: a unix socket path, or "host:port" on loopback. */
  address: string;
  startedAt: string;
};

/**
 * `live`: the holder answered with its instance id. `silent`: something accepts connections on
 * its socket but did not answer in time (a stopped or wedged process); it is not taken over.
 * `gone`: no lock, or a lock whose holder cannot answer.
 */
export type HolderState = { state: "live" | "silent"; lock: LockInfo } | { state: "gone"; lock: LockInfo | null };

export const lockPath = (dataDir: string) => path.join(dataDir, "easel.lock");
export const newInstanceId = () => crypto.randomBytes(16).toString("hex");

const PROBE_TIMEOUT_MS = 2_000;

export function readLock(dataDir: string): LockInfo | null {
  return parseLock(lockPath(dataDir));
}

function parseLock(file: string): LockInfo | null {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  try {
    const info = JSON.parse(text) as Partial<LockInfo>;
    // A lock without an instance id was written before owners answered `identify`; its holder
    // cannot prove it lives, so it is judged by whether anything accepts on its socket.
    return { role: "server", startedAt: "", ...info, instance: info.instance ?? "", pid: info.pid ?? 0, address: info.address ?? "" } as LockInfo;
  } catch {
    // Locks are linked into place complete, so an unreadable one was not written by an owner.
    return { instance: "", pid: 0, role: "server", address: "", startedAt: "" };
  }
}

/** Asks the socket named in the lock who listens there. */
async function probe(lock: LockInfo): Promise<HolderState["state"]> {
  if (!lock.address) return "gone";
  let socket;
  try {
    socket = await sendControl(lock.address, { op: "identify" }, PROBE_TIMEOUT_MS);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ETIMEDOUT" ? "silent" : "gone";
  }
  if (!lock.instance) {
    socket.destroy();
    return "live";
  }
  try {
    const answer = await readJsonLine(socket, PROBE_TIMEOUT_MS);
    return answer?.instance === lock.instance ? "live" : "gone";
  } catch {
    return "silent";
  }
}

/** The holder of the dir and whether it lives (see HolderState). */
export async function probeHolder(dataDir: string): Promise<HolderState> {
  const lock = readLock(dataDir);
  if (!lock) return { state: "gone", lock: null };
  const state = await probe(lock);
  if (state === "gone") return { state, lock };
  return { state, lock };
}

/**
 * Removes a lock whose holder is gone, and only that one: the lock is first renamed aside
 * (atomic), then checked to be the one judged stale. Another process that took the dir over in
 * between gets its lock back.
 */
function removeStaleLock(dataDir: string, stale: LockInfo, self: string) {
  const aside = `${lockPath(dataDir)}.stale-${self}`;
  try {
    fs.renameSync(lockPath(dataDir), aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  const moved = parseLock(aside);
  if (moved && moved.instance !== stale.instance) {
    try {
      fs.linkSync(aside, lockPath(dataDir));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    fs.rmSync(aside, { force: true });
    return;
  }
  fs.rmSync(aside, { force: true });
  removeSocketFile(dataDir, stale.address);
}

/** A unix socket the dead holder left in the data dir. */
function removeSocketFile(dataDir: string, address: string) {
  if (address.startsWith("/") && path.dirname(address) === path.resolve(dataDir)) fs.rmSync(address, { force: true });
}

export type Acquired = { acquired: true; lock: LockInfo } | { acquired: false; holder: HolderState & { state: "live" | "silent" } };

/**
 * Claims the dir for `instance`, which already listens on `address` (so that from the first moment
 * the lock exists, its holder can prove it lives). The lock appears complete or not at all: it is
 * written to a file of its own and hard-linked into place, which fails when a lock exists. A lock
 * whose holder is gone is removed and the claim retried at once.
 */
export async function acquire(dataDir: string, info: Omit<LockInfo, "startedAt">): Promise<Acquired> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lock: LockInfo = { ...info, startedAt: new Date().toISOString() };
  const draft = `${lockPath(dataDir)}.${info.instance}`;
  fs.writeFileSync(draft, JSON.stringify(lock), { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        fs.linkSync(draft, lockPath(dataDir));
        process.once("exit", () => release(dataDir, info.instance));
        return { acquired: true, lock };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      }
      const holder = await probeHolder(dataDir);
      if (holder.state !== "gone") return { acquired: false, holder };
      if (holder.lock) {
        log().warn(
          { component: "database", data_dir: dataDir, previous_pid: holder.lock.pid, previous_address: holder.lock.address || null },
          "took over the data dir: its lock named a process that no longer answers",
        );
        removeStaleLock(dataDir, holder.lock, info.instance);
      }
    }
    throw new Error(`could not claim the data dir ${dataDir}: its lock kept changing hands`);
  } finally {
    fs.rmSync(draft, { force: true });
  }
}

/** Gives the dir up, if this instance still holds it. */
export function release(dataDir: string, instance: string) {
  let lock: LockInfo | null;
  try {
    lock = readLock(dataDir);
  } catch (err) {
    // Left in place: the next owner proves this instance gone and takes the lock over.
    log().warn({ component: "database", data_dir: dataDir, err }, "could not read the data dir lock to release it; it is left for the next start to take over");
    return;
  }
  if (lock?.instance !== instance) return;
  fs.rmSync(lockPath(dataDir), { force: true });
  removeSocketFile(dataDir, lock.address);
}
