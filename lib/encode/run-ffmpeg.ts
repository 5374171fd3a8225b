import { spawn } from "node:child_process";
import fs from "node:fs";
import { log } from "../log/logger.mjs";
import { binaries } from "../media/ffmpeg";

/**
 * Runs one ffmpeg encode, its pid kept in `pidFile` while it runs. A worker killed with -9 leaves
 * its ffmpeg running (nothing forwards the kill); when the step runs again, that orphan would burn
 * the cores the new attempt needs. So a pid file left behind is checked against the process table
 * and its process killed, but only if it is an ffmpeg working in `scratch` (this run's folder):
 * a recycled pid belongs to someone else and is left alone.
 */
export async function runFfmpeg(args: string[], opts: { timeoutMs: number; pidFile: string; scratch: string }): Promise<void> {
  await stopOrphan(opts.pidFile, opts.scratch);
  const child = spawn(binaries().ffmpeg, args, { stdio: ["ignore", "ignore", "pipe"] });
  if (child.pid) await fs.promises.writeFile(opts.pidFile, String(child.pid));
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once("error", reject);
      child.once("close", (c, signal) => resolve(signal ? null : c));
    });
    if (code !== 0) {
      const tail = stderr.split("\n").filter(Boolean).slice(-3).join(" | ");
      throw new Error(`ffmpeg ${code === null ? "was killed (timeout or signal)" : `exited with ${code}`}${tail ? `: ${tail}` : ""}`);
    }
  } finally {
    clearTimeout(timer);
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
