import { spawn, type ChildProcess } from "node:child_process";
import { isStopping, trackChild } from "./children";
import { MediaLimitError, MediaStoppedError } from "./limit-error";
import { mediaLimits } from "./limits";

export type LimitedOptions = {
  /** What the child does, for messages ("ffprobe", "the image render"). */
  what: string;
  /** Wall time before SIGKILL; default EASEL_MEDIA_TIMEOUT_S. */
  timeoutMs?: number;
  /** RLIMIT_DATA of the child; default EASEL_MEDIA_MEMORY_MB. */
  memoryBytes?: number;
  /** Stdout kept in memory at most (a child that writes more is killed): results go through files. */
  maxStdoutBytes?: number;
  /** Receives stdout as it arrives instead of keeping it (a child reporting progress for minutes); the result's stdout is then empty. */
  onStdout?: (chunk: Buffer) => void;
  /** Called with the child's pid once it runs (the encode keeps it in a pid file). */
  onSpawn?: (child: ChildProcess) => void;
};

export type LimitedResult = { stdout: string; stderr: string };

/** A child that failed on its own (not over a limit): its exit and the last lines it wrote to stderr. */
export class MediaChildError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
    this.name = "MediaChildError";
  }
}

/**
 * Signals a native decoder dies of when an allocation fails under the data limit (abort from
 * glib/C++ or V8, or a fault on a null it did not check), and messages it prints when it copes.
 */
const MEMORY_SIGNALS = new Set(["SIGABRT", "SIGSEGV", "SIGBUS", "SIGTRAP"]);
const MEMORY_MESSAGES = /out of memory|cannot allocate memory|std::bad_alloc|allocation failed|failed to allocate|ENOMEM|rendering error|rendering failed/i;

/** True when a child's failure reads as its memory limit: librsvg, for one, reports a failed surface allocation only as "rendering failed". */
export function looksLikeMemoryLimit(signal: NodeJS.Signals | null, text: string): boolean {
  return (signal !== null && MEMORY_SIGNALS.has(signal)) || MEMORY_MESSAGES.test(text);
}

/**
 * Runs `bin args` in a child process under the media limits, enforced by the kernel rather than
 * by this process: `prlimit --data` caps the child's writable private memory (RLIMIT_DATA, which
 * on Linux ≥ 4.7 counts heap and anonymous mappings: what a decoder's buffers take; RLIMIT_AS
 * would also count the virtual ranges V8, glib and thread stacks reserve, and at 1 GiB it failed
 * small legitimate renders now and then), `setpriv --pdeathsig KILL` ends it if this process dies (a
 * `kill -9` of the server leaves no render behind), and a timer sends SIGKILL at the wall-time
 * limit. glibc's malloc arenas are capped at two, so threads do not reserve 64 MiB each.
 * Both tools come with util-linux (always present on Debian).
 *
 * Resolves with the output of a child that exited 0. Over a limit: MediaLimitError. Ended by a
 * server stop: MediaStoppedError. Any other failure: MediaChildError.
 */
export function runLimited(bin: string, args: string[], opts: LimitedOptions): Promise<LimitedResult> {
  const limits = mediaLimits();
  const timeoutMs = opts.timeoutMs ?? limits.timeoutMs;
  const memoryBytes = opts.memoryBytes ?? limits.memoryBytes;
  const maxStdout = opts.maxStdoutBytes ?? 32 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    if (isStopping()) return reject(new MediaStoppedError(opts.what));
    const child = spawn("setpriv", ["--pdeathsig", "KILL", "--", "prlimit", `--data=${memoryBytes}`, "--", bin, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, MALLOC_ARENA_MAX: "2" },
    });
    trackChild(child);
    // Kept as bytes until the end: a chunk may end inside a multi-byte character.
    const chunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = "";
    let overTime = false;
    let overOutput = false;
    child.stdout!.on("data", (d: Buffer) => {
      if (opts.onStdout) return opts.onStdout(d);
      stdoutBytes += d.length;
      if (stdoutBytes > maxStdout) {
        overOutput = true;
        child.kill("SIGKILL");
      } else chunks.push(d);
    });
    child.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-8000)));
    const timer = setTimeout(() => {
      overTime = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    if (child.pid) opts.onSpawn?.(child);
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(new MediaChildError(`${opts.what} could not start (setpriv and prlimit from util-linux are required): ${err.message}`, ""));
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(chunks).toString("utf8");
      const tail = stderr.split("\n").filter(Boolean).slice(-3).join(" | ");
      const mb = Math.round(memoryBytes / (1024 * 1024));
      // What the child wrote before it was stopped goes with the error: a child reporting step by step loses only the rest.
      // (Not enumerable: it stays out of the log line that records the error.)
      const fail = (err: Error) => reject(Object.defineProperty(err, "stdout", { value: stdout, enumerable: false }));
      if (overTime) return fail(new MediaLimitError("time_limit", `${opts.what} ran longer than its time limit of ${Math.round(timeoutMs / 1000)} s and was stopped`));
      if (signal && isStopping()) return reject(new MediaStoppedError(opts.what));
      if (code === 0 && !overOutput) return resolve({ stdout, stderr });
      if (overOutput) return reject(new MediaChildError(`${opts.what} wrote more than ${maxStdout} bytes of output and was stopped`, stderr));
      if (looksLikeMemoryLimit(signal, stderr)) return fail(new MediaLimitError("memory_limit", `${opts.what} needed more than its memory limit of ${mb} MB and was stopped`, tail));
      reject(new MediaChildError(`${opts.what} failed (${signal ? `killed by ${signal}` : `exit ${code}`})${tail ? `: ${tail}` : ""}`, stderr));
    });
  });
}
