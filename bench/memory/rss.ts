/**
 * Resident memory and CPU time of a process tree from /proc: the server and anything it spawned
 * (ffmpeg; sharp workers run as threads and count in the server's own figure).
 */
import fs from "node:fs";

function children(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      out.push(...fs.readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(/\s+/).filter(Boolean).map(Number));
    } catch {}
  }
  return out;
}

export function tree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...children(all[i]));
  return all;
}

function field(pid: number, name: "VmRSS" | "VmHWM"): number {
  try {
    return Number(new RegExp(`${name}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Current RSS of the tree, MiB. */
export const rssMiB = (pid: number) => tree(pid).reduce((kb, p) => kb + field(p, "VmRSS"), 0) / 1024;

/** Peak RSS of the tree since the last resetPeak, MiB (each process's high-water mark, summed). */
export const peakMiB = (pid: number) => tree(pid).reduce((kb, p) => kb + field(p, "VmHWM"), 0) / 1024;

/** Resets the kernel's high-water mark of every process of the tree to its current RSS. */
export function resetPeak(pid: number) {
  for (const p of tree(pid)) {
    try {
      fs.writeFileSync(`/proc/${p}/clear_refs`, "5");
    } catch {}
  }
}

/**
 * Samples the tree every `everyMs` while `work` runs; the peak is the larger of the sampled
 * maximum and the kernel's high-water mark (which also catches spikes between samples).
 */
export async function peakDuring<T>(pid: number, work: () => Promise<T>, everyMs = 250): Promise<{ result: T; peak: number }> {
  resetPeak(pid);
  let sampled = rssMiB(pid);
  const timer = setInterval(() => (sampled = Math.max(sampled, rssMiB(pid))), everyMs);
  try {
    const result = await work();
    return { result, peak: Math.max(sampled, peakMiB(pid)) };
  } finally {
    clearInterval(timer);
  }
}

/** USER_HZ: the unit of the CPU times in /proc/<pid>/stat (100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time (user + system, ms) used so far by a process tree. */
export function cpuMs(pid: number): number {
  let ticks = 0;
  for (const p of tree(pid)) {
    try {
      const fields = fs.readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited between listing and reading
    }
  }
  return (ticks * 1000) / TICKS_PER_SECOND;
}
