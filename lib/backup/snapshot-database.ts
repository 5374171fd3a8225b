import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { withExclusiveSession } from "../db/embedded/wire-server";
import type { Hold } from "../objectstore/disk/holds";
import { holdDeletions } from "../objectstore/disk/pins";
import { copyTree } from "./copy-tree";

/** Where a backup stages its copy of the database: inside the data dir (same filesystem, fast). */
export const STAGING_PREFIX = ".backup-";

export type DatabaseSnapshot = {
  /** The copy of PGlite's data dir, as of the snapshot. */
  pgDir: string;
  pgVersion: string;
  assets: number;
  versions: number;
  lockedMs: number;
  /** In force from the snapshot on: no object file the snapshot may name is removed until release. */
  hold: Hold;
  /** Ends the hold and removes the staged copy. */
  release: () => Promise<void>;
};

/**
 * Takes the backup's point in time. With the one PGlite session to itself (no query, transaction
 * or socket batch can run), it starts the object store's deletion hold, flushes every dirty page
 * to the data files (CHECKPOINT), counts assets and versions, and copies PGlite's data dir to a
 * staging folder. Every object the copied database names was committed to the store before
 * (uploads and copies commit bytes before rows), and from this moment none of them can lose its
 * files until the hold ends, so the archive's database and objects agree.
 *
 * The copy is the only slow step under the lock: a local copy of the database files (tens of MB
 * for most data dirs; copy-tree.ts).
 */
export async function snapshotDatabase(pg: PGlite, dataDir: string): Promise<DatabaseSnapshot> {
  const staging = path.join(dataDir, `${STAGING_PREFIX}${crypto.randomBytes(6).toString("hex")}`);
  const pgDir = path.join(staging, "pg");
  await fs.mkdir(staging, { mode: 0o700 });
  const box: { held?: ReturnType<typeof holdDeletions> } = {};
  try {
    const taken = await withExclusiveSession(pg, async () => {
      const started = performance.now();
      box.held = holdDeletions(path.join(dataDir, "objects"));
      await simpleQuery(pg, "CHECKPOINT");
      const [counts] = await simpleQuery(pg, "SELECT (SELECT count(*) FROM assets), (SELECT count(*) FROM asset_versions)");
      // A server's pid file (PGlite writes none today) would make the restored copy look in use.
      await copyTree(path.join(dataDir, "pg"), pgDir, (name) => name === "postmaster.pid");
      return { assets: Number(counts[0]), versions: Number(counts[1]), lockedMs: performance.now() - started };
    });
    const pgVersion = (await fs.readFile(path.join(pgDir, "PG_VERSION"), "utf8")).trim();
    const hold = box.held!;
    return {
      pgDir,
      pgVersion,
      ...taken,
      hold: hold.hold,
      release: async () => {
        try {
          await hold.release();
        } finally {
          await fs.rm(staging, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    await box.held?.release();
    await fs.rm(staging, { recursive: true, force: true });
    throw err;
  }
}

/**
 * One statement over PGlite's protocol entry point, which (unlike query()) takes none of the
 * session locks this code already holds. Returns the rows as text.
 */
async function simpleQuery(pg: PGlite, sql: string): Promise<(string | null)[][]> {
  const text = Buffer.from(`${sql}\0`, "utf8");
  const message = Buffer.alloc(5 + text.length);
  message.write("Q", 0, "latin1");
  message.writeInt32BE(4 + text.length, 1);
  text.copy(message, 5);
  const { messages } = await pg.execProtocol(new Uint8Array(message));
  return messages.filter((m) => m.name === "dataRow").map((m) => (m as unknown as { fields: (string | null)[] }).fields);
}
