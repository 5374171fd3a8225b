import type { ChildProcess } from "node:child_process";

/** Resolves when the child has exited, also when it already had before this was called. */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once("exit", () => r()));
}
