import fs from "node:fs";
import { log } from "../log/logger.mjs";
import { binaries } from "../media/ffmpeg";
import { runLimited } from "../sandbox/run-limited";
import { progressReader } from "./ffmpeg-progress";

/**
 * Runs one ffmpeg encode, its pid kept in `pidFile` while it runs. A worker killed with -9 takes
 * its ffmpeg with it (parent-death signal, lib/sandbox/run-limited.ts), but a worker of another
 * node or an older release may have left one running; when the step runs again, that orphan would
 * burn the cores the new attempt needs. So a pid file left behind is checked against the process table
 * and its process killed, but only if it is an ffmpeg working in `scratch` (this run's folder):
 * a recycled pid belongs to someone else and is left alone.
 */
export async function runFfmpeg(
  args: string[],
  opts: { timeoutMs: number; pidFile: string; scratch: string; onPosition?: (seconds: number) => void },
): Promise<void> {
  await stopOrphan(opts.pidFile, opts.scratch);
  // Under the media limits (time in proportion to the source, memory EASEL_MEDIA_MEMORY_MB): MediaLimitError over one.
  let wrote: Promise<void> = Promise.resolve();
  try {
    // With a position listener, ffmpeg reports where its output stands on stdout (`-progress`).
    const onPosition = opts.onPosition;
    const reporting = onPosition ? ["-progress", "pipe:1", "-nostats"] : [];
    await runLimited(binaries().ffmpeg, [...reporting, ...args], {
      what: "ffmpeg",
      ...(onPosition ? { onStdout: progressReader((seconds) => onPosition(seconds)) } : {}),
      timeoutMs: opts.timeoutMs,
      onSpawn: (child) => (wrote = fs.promises.writeFile(opts.pidFile, String(child.pid))),
    });
  } finally {
    await wrote.catch((err: unknown) => log().warn({ component: "encode", err }, "could not write the encode's pid file; a later attempt cannot stop this ffmpeg if it outlives its worker"));
    await fs.promises.rm(opts.pidFile, { force: true });
  }
}

async function stopOrphan(pidFile: string, scratch: string): Promise<void> {
  const pid = Number(await fs.promises.readFile(pidFile, "utf8").catch(() => ""));
  if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) return;
  const cmdline = await fs.promises.readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  if (!cmdline.includes("ffmpeg") || !cmdline.includes(scratch)) return;
  try {
    process.kill(pid, "SIGKILL");
    log().info({ component: "encode", pid }, "stopped an ffmpeg left running by an earlier attempt of this step");
  } catch {
    // already gone
  }
}
