import fs from "node:fs";
import path from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import { openDb } from "../db/client";
import { openControl } from "../db/embedded/control";
import { writeArchive } from "./archive-output";
import type { BackupSummary } from "./format";
import type { PackProgress } from "./pack-archive";
import { receiveBackup } from "./request-backup";
import { runBackup } from "./run-backup";

export type BackupResult = BackupSummary & { bytes: number; via: "server" | "this process" };

/**
 * `backup <file>`: the owner of the data dir makes the backup. When a server runs, it is asked
 * over the data dir's control channel and streams the archive here; when none does, this process
 * owns the dir for the duration (a server started meanwhile waits for it) and makes it itself.
 */
export async function backupDataDir(opts: { dataDir: string; file: string; onProgress?: (p: PackProgress) => void }): Promise<BackupResult> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const socket = await openControl(opts.dataDir, { op: "backup" });
    if (socket) {
      const remote = receiveBackup(socket, opts.onProgress);
      const bytes = await writeArchive(remote.stream, opts.file);
      return { ...remote.summary()!, bytes, via: "server" };
    }
    if (!fs.existsSync(path.join(opts.dataDir, "pg", "PG_VERSION"))) throw new Error(`there is no Easel database in ${opts.dataDir} (EASEL_DATA_DIR)`);
    const handle = await openDb({ dataDir: opts.dataDir, role: "tool" });
    try {
      // A server claimed the dir between the two looks: ask it instead.
      if (handle.driver !== "pglite") continue;
      const pg = (handle.db as unknown as { $client: PGlite }).$client;
      const backup = await runBackup(pg, opts.dataDir, opts.onProgress);
      const bytes = await writeArchive(backup.stream, opts.file).catch(async (err: Error) => {
        await backup.summary.catch(() => undefined);
        throw err;
      });
      return { ...(await backup.summary), bytes, via: "this process" };
    } finally {
      await handle.close();
    }
  }
  throw new Error(`the data dir ${opts.dataDir} kept changing owners; try again`);
}
