import path from "node:path";
import type { Readable } from "node:stream";
import type { PGlite } from "@electric-sql/pglite";
import { FORMAT, FORMAT_VERSION, type BackupSummary, type Manifest } from "./format";
import { packArchive, type PackProgress } from "./pack-archive";
import { dataDirBackupKey } from "./signing-key";
import { snapshotDatabase } from "./snapshot-database";

export type RunningBackup = {
  /** The archive's bytes (plain tar). Pull it to the end, or destroy it to give up. */
  stream: Readable;
  /** Settles once the stream has ended (or failed); the hold and the staged copy are gone by then. */
  summary: Promise<BackupSummary>;
};

/**
 * A backup of the embedded data dir by its owner (the server, or the CLI when no server runs):
 * the database snapshot (snapshot-database.ts), then the archive streamed from it and the object
 * store (pack-archive.ts). The deletion hold and the staged copy last until the stream ends,
 * fails or is destroyed, and never longer. The archive is signed with the data dir's backup key
 * (signing-key.ts), made by the first backup.
 */
export async function runBackup(pg: PGlite, dataDir: string, onProgress?: (p: PackProgress) => void): Promise<RunningBackup> {
  const key = await dataDirBackupKey(dataDir);
  const snapshot = await snapshotDatabase(pg, dataDir);
  const manifest: Manifest = {
    format: FORMAT,
    version: FORMAT_VERSION,
    created_at: new Date().toISOString(),
    pg_version: snapshot.pgVersion,
    assets: snapshot.assets,
    versions: snapshot.versions,
    db_locked_ms: Math.round(snapshot.lockedMs),
    key_id: key.id,
  };
  const { stream, trailer } = packArchive({ manifest, pgDir: snapshot.pgDir, objectsRoot: path.join(dataDir, "objects"), hold: snapshot.hold, key, onProgress });
  const ended = new Promise<void>((resolve, reject) => {
    stream.once("end", resolve);
    stream.once("error", reject);
    // Destroyed by the consumer (a client gone): the archive stops here.
    stream.once("close", () => reject(new Error("the backup was cancelled before its end")));
  });
  const summary = (async (): Promise<BackupSummary> => {
    try {
      const [done] = await Promise.all([trailer, ended]);
      return { assets: manifest.assets, versions: manifest.versions, objects: done.objects, dbLockedMs: manifest.db_locked_ms, damaged: done.damaged, keyId: key.id };
    } catch (err) {
      // Destroyed without an error by its consumer: whatever the pack then reports, it was a cancel.
      if (stream.destroyed && !stream.readableEnded && !stream.errored) throw new Error("the backup was cancelled before its end");
      throw err;
    } finally {
      await snapshot.release();
    }
  })();
  return { stream, summary };
}
