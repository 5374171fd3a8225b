import fs from "node:fs";
import path from "node:path";
import v8 from "node:v8";
import vm from "node:vm";
import { PGlite } from "@electric-sql/pglite";
import { liveHolder, publishAddress, release, tryAcquire, type LockInfo } from "./data-dir-lock";
import { WireServer } from "./wire-server";

export type EmbeddedHandle =
  | { kind: "owner"; pg: PGlite; serve: () => Promise<void>; close: () => Promise<void> }
  | { kind: "client"; address: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A unix socket inside the data dir when its path fits (sun_path is ~107 bytes), else loopback TCP. */
function socketTarget(dataDir: string): { path: string } | { host: string; port: number } {
  const sock = path.join(dataDir, "pg.sock");
  if (Buffer.byteLength(sock) < 100) {
    fs.rmSync(sock, { force: true });
    return { path: sock };
  }
  return { host: "127.0.0.1", port: 0 };
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

async function becomeOwner(dataDir: string): Promise<EmbeddedHandle> {
  const pg = await PGlite.create({ dataDir: path.join(dataDir, "pg") });
  const wire = new WireServer(pg);
  return {
    kind: "owner",
    pg,
    /** Call once the database is migrated: other processes may connect from then on. */
    serve: async () => {
      publishAddress(dataDir, await wire.listen(socketTarget(dataDir)));
    },
    close: async () => {
      await wire.close();
      await pg.close();
      release(dataDir);
    },
  };
}

function describe(holder: LockInfo, dataDir: string) {
  return `another Easel ${holder.role} (pid ${holder.pid}) is using the embedded database in ${dataDir}`;
}

/**
 * Opens the embedded database for a server: it must own the data dir. A second server on the same
 * dir refuses to start; a CLI briefly holding the dir is waited for.
 */
export async function openAsServer(dataDir: string): Promise<EmbeddedHandle> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (tryAcquire(dataDir, "server")) return becomeOwner(dataDir);
    const holder = liveHolder(dataDir);
    if (holder?.role === "server") {
      throw new Error(`${describe(holder, dataDir)}. Stop it first, or set EASEL_DATA_DIR to another directory.`);
    }
    if (Date.now() > deadline) throw new Error(`${holder ? describe(holder, dataDir) : "the data dir is locked"}; gave up after 30 s.`);
    await sleep(250);
  }
}

/**
 * Opens the embedded database for a short-lived tool (the CLI): through the running server's
 * socket when a server owns the dir, else by owning the dir itself for the duration.
 */
export async function openAsTool(dataDir: string): Promise<EmbeddedHandle> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const holder = liveHolder(dataDir);
    if (holder?.address) return { kind: "client", address: holder.address };
    if (!holder && tryAcquire(dataDir, "cli")) return becomeOwner(dataDir);
    if (Date.now() > deadline) throw new Error(`${holder ? describe(holder, dataDir) : "the data dir is locked"} and serves no socket yet; gave up after 60 s.`);
    await sleep(250);
  }
}
