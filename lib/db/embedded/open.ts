import fs from "node:fs";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { PGlite } from "@electric-sql/pglite";
import { acquire, newInstanceId, probeHolder, release, type LockInfo } from "./data-dir-lock";
import { PrivateNodeFS } from "./private-node-fs";
import { WireServer } from "./wire-server";

export type EmbeddedHandle =
  | { kind: "owner"; pg: PGlite; serve: () => Promise<void>; close: () => Promise<void> }
  | { kind: "client"; address: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A unix socket inside the data dir when its path fits (sun_path is ~107 bytes), else loopback TCP.
 * Each owner listens on a socket of its own (a stale one of a dead owner is never in the way), and
 * `pg.sock` is a link to the current owner's, for people and tools that connect by hand.
 */
function socketTarget(dataDir: string, instance: string): { path: string } | { host: string; port: number } {
  const sock = path.join(path.resolve(dataDir), `easel-${instance.slice(0, 12)}.sock`);
  if (Buffer.byteLength(sock) < 100) {
    fs.rmSync(sock, { force: true });
    return { path: sock };
  }
  return { host: "127.0.0.1", port: 0 };
}

function linkPublicSocket(dataDir: string, address: string) {
  const link = path.join(dataDir, "pg.sock");
  fs.rmSync(link, { force: true });
  if (address.startsWith("/")) fs.symlinkSync(path.basename(address), link);
}

/**
 * Opening PGlite (and, in a new data dir, creating its cluster) and migrating it leave a spare
 * WebAssembly memory of PGlite's size and ~100-200 MiB of buffers behind as garbage, which V8,
 * whose own heap is small, may not collect for hours: a server idled ~300 MiB above what it
 * needs. One full collection once the database is ready returns it (measured: 758 -> 446 MiB RSS
 * on a new data dir). V8 offers a collection to code only once `--expose-gc` is set, hence the
 * new context.
 */
export function collectStartupGarbage() {
  try {
    v8.setFlagsFromString("--expose-gc");
    (vm.runInNewContext("gc") as () => void)();
  } catch {
    // An engine without the flag: the memory is returned whenever V8 gets to it.
  }
}

type Claim = { kind: "owner"; handle: EmbeddedHandle } | { kind: "held"; holder: LockInfo; silent: boolean };

/**
 * Listens first, then claims the lock naming that socket, then opens PGlite: from the moment the
 * lock exists its holder can prove it lives. Sessions arriving before the database is migrated
 * wait for `serve()`.
 */
async function claim(dataDir: string, role: LockInfo["role"]): Promise<Claim> {
  const instance = newInstanceId();
  const wire = new WireServer(null, { instance, role, dataDir: path.resolve(dataDir) });
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const address = await wire.listen(socketTarget(dataDir, instance));
  let result;
  try {
    result = await acquire(dataDir, { instance, pid: process.pid, role, address });
  } catch (err) {
    await wire.close();
    throw err;
  }
  if (!result.acquired) {
    await wire.close();
    return { kind: "held", holder: result.holder.lock, silent: result.holder.state === "silent" };
  }
  linkPublicSocket(dataDir, address);
  let pg: PGlite;
  try {
    // PostgreSQL's modes (0700 folder, 0600 files) from the first file on: lib/db/embedded/private-node-fs.ts.
    const pgDir = path.join(dataDir, "pg");
    fs.mkdirSync(pgDir, { recursive: true, mode: 0o700 });
    pg = await PGlite.create({ fs: new PrivateNodeFS(pgDir) });
  } catch (err) {
    await wire.close();
    release(dataDir, instance);
    throw err;
  }
  return {
    kind: "owner",
    handle: {
      kind: "owner",
      pg,
      /** Call once the database is migrated: sessions of other processes start from then on. */
      serve: async () => wire.ready(pg),
      close: async () => {
        await wire.close();
        await pg.close();
        release(dataDir, instance);
      },
    },
  };
}

function describe(holder: LockInfo, dataDir: string, silent: boolean) {
  const who = `another Easel ${holder.role} (pid ${holder.pid}) is using the embedded database in ${dataDir}`;
  return silent ? `${who}, but does not answer on ${holder.address} (stopped or wedged?)` : who;
}

/**
 * Opens the embedded database for a server: it must own the data dir. A second server on the same
 * dir refuses to start; a CLI briefly holding the dir is waited for.
 */
export async function openAsServer(dataDir: string): Promise<EmbeddedHandle> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const claimed = await claim(dataDir, "server");
    if (claimed.kind === "owner") return claimed.handle;
    const { holder, silent } = claimed;
    if (holder.role === "server" || silent) {
      throw new Error(`${describe(holder, dataDir, silent)}. Stop it first, or set EASEL_DATA_DIR to another directory.`);
    }
    if (Date.now() > deadline) throw new Error(`${describe(holder, dataDir, silent)}; gave up after 30 s.`);
    await sleep(250);
  }
}

/**
 * Opens the embedded database for a short-lived tool (the CLI): through the owner's socket when a
 * live process owns the dir, else by owning the dir itself for the duration. It never waits on a
 * holder that does not answer: it says so within seconds.
 */
export async function openAsTool(dataDir: string): Promise<EmbeddedHandle> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const holder = await probeHolder(dataDir);
    if (holder.state === "live") return { kind: "client", address: holder.lock.address };
    if (holder.state === "silent") throw new Error(`${describe(holder.lock, dataDir, true)}.`);
    const claimed = await claim(dataDir, "cli");
    if (claimed.kind === "owner") return claimed.handle;
    // Another process claimed the dir between the probe and the claim: go through it.
  }
  throw new Error(`the data dir ${dataDir} kept changing owners; try again.`);
}
