import type { ChildProcess } from "node:child_process";

/** Resolves when the child has exited, also when it already had before this was called. */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once("exit", () => r()));
}

/** A line a server wrote to stdout: its JSON log record, or `{ msg }` for a line that is not JSON. */
export type LogLine = Record<string, any>; // each test reads the fields of the lines it looks for

/** Every line `child` writes to stdout from now on, each parsed when it is whole (a chunk may end mid-line). */
export function followLogLines(child: ChildProcess): LogLine[] {
  const out: LogLine[] = [];
  let partial = "";
  child.stdout!.on("data", (d: Buffer) => {
    const parts = (partial + d.toString()).split("\n");
    partial = parts.pop()!;
    for (const p of parts) {
      try {
        out.push(JSON.parse(p));
      } catch {
        out.push({ msg: p }); // not a log record (a library's own print): kept as text
      }
    }
  });
  return out;
}
