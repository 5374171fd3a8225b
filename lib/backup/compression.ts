import { spawn } from "node:child_process";
import { Duplex } from "node:stream";
import zlib from "node:zlib";
import type { Compression } from "./format";

/** A compressing or decompressing stage, and when the work behind it has really finished. */
export type Codec = { stream: Duplex; done: Promise<void> };

/**
 * gzip is Node's own (zlib, in the thread pool). Node 20 has no zstd, so zstd runs the system's
 * `zstd` program when it is installed (Debian: apt install zstd); it is optional, and its absence
 * is said plainly.
 */
export function compressor(kind: Compression): Codec | null {
  if (kind === "gzip") return { stream: zlib.createGzip({ level: 6 }), done: Promise.resolve() };
  if (kind === "zstd") return zstd(["-q", "-c", "-3", "-T0"]);
  return null;
}

export function decompressor(kind: Compression): Codec | null {
  if (kind === "gzip") return { stream: zlib.createGunzip(), done: Promise.resolve() };
  if (kind === "zstd") return zstd(["-q", "-d", "-c"]);
  return null;
}

function zstd(args: string[]): Codec {
  const child = spawn("zstd", args, { stdio: ["pipe", "pipe", "pipe"] });
  const stream = Duplex.from({ writable: child.stdin, readable: child.stdout });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d.slice(0, 2000)));
  const done = new Promise<void>((resolve, reject) => {
    child.once("error", (err: NodeJS.ErrnoException) => {
      const failure = err.code === "ENOENT" ? new Error("zstd is not installed: install it (apt install zstd) or name the archive .tar or .tar.gz") : err;
      stream.destroy(failure);
      reject(failure);
    });
    child.once("close", (code, signal) => {
      if (code === 0) return resolve();
      const failure = new Error(`zstd failed (${signal ?? `exit ${code}`}): ${stderr.trim()}`);
      stream.destroy(failure);
      reject(failure);
    });
  });
  // The pipeline reports a failure through the stream; `done` is awaited only after a success.
  done.catch(() => undefined);
  return { stream, done };
}
