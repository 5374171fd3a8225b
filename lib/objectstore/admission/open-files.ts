import fs from "node:fs/promises";
import { log } from "../../log/logger.mjs";

/**
 * An estimate of the process's open files, cheap enough to consult on every upload body.
 *
 * Counting /proc/self/fd on each request costs a directory read of every descriptor (10,000
 * entries at the worst moment, when it matters most), so a timer reads it every 250 ms instead,
 * on the thread pool and unref'd so it never holds the process open, together with the current
 * soft limit from /proc/self/limits (the server raises it at start, lib/server/open-file-limit.mjs).
 * Between two readings each admitted body adds one (its temporary file), so a burst inside one
 * interval cannot overshoot the bound by more than what its sockets cost.
 *
 * Where /proc is missing (not Linux), the estimate stays unknown and this bound admits everything;
 * the per-URL, per-workspace and per-address bounds still hold.
 */
export const SAMPLE_EVERY_MS = 250;

/** The share of the open-file limit past which new upload bodies are refused. */
export const OPEN_FILES_REFUSE_SHARE = 0.8;

export type OpenFilesReading = { open: number; limit: number };

export type OpenFilesEstimate = {
  /** The last reading plus the bodies admitted since, or null when none could be taken. */
  current(): OpenFilesReading | null;
  /** One more file about to be opened (an admitted body's temporary file). */
  opened(): void;
  tight(): boolean;
  stop(): void;
};

async function readOpenFiles(): Promise<OpenFilesReading> {
  const [entries, limits] = await Promise.all([fs.readdir("/proc/self/fd"), fs.readFile("/proc/self/limits", "utf8")]);
  return { open: entries.length, limit: softLimitOf(limits) };
}

/** The soft "Max open files" of a /proc/<pid>/limits text; Infinity for "unlimited". */
export function softLimitOf(limits: string): number {
  const line = limits.split("\n").find((l) => l.startsWith("Max open files"));
  const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
  if (soft === undefined) throw new Error("no 'Max open files' line in /proc/self/limits");
  return soft === "unlimited" ? Infinity : Number(soft);
}

export function sampleOpenFiles(read: () => Promise<OpenFilesReading> = readOpenFiles, everyMs = SAMPLE_EVERY_MS): OpenFilesEstimate {
  let last: OpenFilesReading | null = null;
  let sinceReading = 0;
  let warned = false;
  let reading = false;
  const sample = () => {
    if (reading) return;
    reading = true;
    read().then(
      (r) => {
        last = r;
        sinceReading = 0;
      },
      (err: Error) => {
        // The bound is off until a reading succeeds; said once, not every 250 ms.
        if (!warned) log().warn({ component: "objectstore", err }, "open files cannot be counted: uploads are not refused for open files");
        warned = true;
      },
    ).finally(() => (reading = false));
  };
  sample();
  const timer = setInterval(sample, everyMs);
  timer.unref();
  const current = (): OpenFilesReading | null => (last ? { open: last.open + sinceReading, limit: last.limit } : null);
  return {
    current,
    opened: () => void sinceReading++,
    tight() {
      const now = current();
      return now !== null && now.open >= now.limit * OPEN_FILES_REFUSE_SHARE;
    },
    stop: () => clearInterval(timer),
  };
}
