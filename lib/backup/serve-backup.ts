import { once } from "node:events";
import fs from "node:fs/promises";
import type net from "node:net";
import path from "node:path";
import { registerControl, type OwnerContext } from "../db/embedded/control";
import { log } from "../log/logger.mjs";
import { releaseStaleHolds } from "../objectstore/disk/holds";
import { encodeFrame, FRAME, frameHead } from "./frames";
import { runBackup, type RunningBackup } from "./run-backup";
import { STAGING_PREFIX } from "./snapshot-database";

const PROGRESS_EVERY_MS = 500;

/**
 * The `backup` operation of the data dir's control channel, answered by the owner (frames.ts).
 * The archive is streamed as fast as the requesting CLI writes it: a slow disk on that side slows
 * the reads here instead of filling memory. A client that goes away cancels the backup.
 */
export async function serveBackup(_request: unknown, socket: net.Socket, owner: OwnerContext): Promise<void> {
  const gone = new AbortController();
  socket.once("close", () => gone.abort());
  // A reset connection also closes it (handled above); the error itself carries nothing more.
  socket.on("error", () => undefined);
  let backup: RunningBackup;
  try {
    let last = 0;
    backup = await runBackup(owner.pg, owner.dataDir, (p) => {
      if (Date.now() - last < PROGRESS_EVERY_MS) return;
      last = Date.now();
      socket.write(encodeFrame(FRAME.progress, p));
    });
  } catch (err) {
    log().error({ component: "backup", err }, "backup could not start; the requesting CLI is told why");
    socket.end(encodeFrame(FRAME.error, { message: (err as Error).message }));
    return;
  }
  try {
    for await (const chunk of backup.stream) {
      socket.write(frameHead(FRAME.data, (chunk as Buffer).length));
      if (!socket.write(chunk as Buffer)) await once(socket, "drain", { signal: gone.signal });
    }
    socket.end(encodeFrame(FRAME.summary, await backup.summary));
  } catch (err) {
    backup.stream.destroy();
    await backup.summary.catch(() => undefined);
    const message = gone.signal.aborted ? "the requesting process went away" : (err as Error).message;
    log().error({ component: "backup", reason: message, err: gone.signal.aborted ? undefined : err }, "backup stopped before its end; the archive is incomplete");
    if (!socket.destroyed) socket.end(encodeFrame(FRAME.error, { message }));
  }
}

/**
 * What a backup interrupted by a crash leaves in the data dir: its staged database copy and the
 * files its deletion hold kept (listed in the store's hold journals). Called by the new owner.
 */
export async function releaseBackupLeftovers(dataDir: string): Promise<void> {
  let names: string[] = [];
  try {
    names = await fs.readdir(dataDir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const staged = names.filter((n) => n.startsWith(STAGING_PREFIX));
  for (const name of staged) await fs.rm(path.join(dataDir, name), { recursive: true, force: true });
  const files = await releaseStaleHolds(path.join(dataDir, "objects"));
  if (staged.length || files) log().info({ component: "backup", data_dir: dataDir, staged_copies: staged.length, held_files: files }, "removed what an interrupted backup left in the data dir");
}

registerControl("backup", serveBackup);
