// @ts-check
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { log } from "../log/logger.mjs";

/**
 * Raises the process's open-file limit (RLIMIT_NOFILE) from its soft value to its hard one at
 * start, so every socket and upload the hard limit allows can be held, and logs both. Node has no
 * setrlimit; `prlimit` (util-linux) sets the limit of another process by pid, so a child sets it
 * on this one. Without prlimit, or when it is refused, the server logs that and runs with the soft
 * limit: the store's open-file bound (lib/objectstore/admission/open-files.ts) reads the limit in
 * force, whichever it is. Node's own start-up already tries the same raise on Linux, so most often
 * this finds the soft limit at the hard one and only logs both.
 */

/** @param {string} value */
const limitValue = (value) => (value === "unlimited" ? Infinity : Number(value));

/**
 * The soft and hard "Max open files" of a /proc/<pid>/limits text.
 * @param {string} text
 */
export function openFileLimitsOf(text) {
  const line = text.split("\n").find((l) => l.startsWith("Max open files"));
  if (!line) return null;
  const [soft, hard] = line.slice("Max open files".length).trim().split(/\s+/);
  return { soft: limitValue(soft), hard: limitValue(hard) };
}

const readLimits = () => openFileLimitsOf(fs.readFileSync("/proc/self/limits", "utf8"));

/**
 * @param {{ run?: (file: string, args: string[]) => void, read?: () => { soft: number, hard: number } | null }} [io]
 *   tests replace the child and the reading
 * @returns {{ before: { soft: number, hard: number } | null, after: { soft: number, hard: number } | null }}
 */
export function raiseOpenFileLimit(io = {}) {
  const run = io.run ?? ((file, args) => void execFileSync(file, args, { stdio: ["ignore", "ignore", "pipe"], timeout: 5_000 }));
  const read = io.read ?? readLimits;
  let before;
  try {
    before = read();
  } catch (err) {
    log().warn({ err }, "open-file limit unknown (no /proc/self/limits): left as it is");
    return { before: null, after: null };
  }
  if (!before) {
    log().warn("open-file limit unknown (no 'Max open files' in /proc/self/limits): left as it is");
    return { before: null, after: null };
  }
  if (before.soft >= before.hard) {
    log().info({ soft: before.soft, hard: before.hard }, "open-file limit already at its hard limit");
    return { before, after: before };
  }
  const hard = before.hard === Infinity ? "unlimited" : String(before.hard);
  try {
    run("prlimit", ["--pid", String(process.pid), `--nofile=${hard}:${hard}`]);
  } catch (err) {
    log().warn({ err, soft: before.soft, hard: before.hard }, "open-file limit not raised (prlimit missing or refused): running with the soft limit");
    return { before, after: before };
  }
  const after = read();
  log().info({ soft_before: before.soft, hard: before.hard, soft: after?.soft }, "open-file limit raised to the hard limit");
  return { before, after };
}
