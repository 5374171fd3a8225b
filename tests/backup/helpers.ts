import { execFile, spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { exited } from "../helpers/child-process";

export type Ran = { code: number | null; stdout: string; stderr: string; last: string };

const ROOT = path.resolve(import.meta.dirname, "../..");

/** `npm run easel -- <args>` as its own process, on the embedded database in `dataDir`. */
export function easel(dataDir: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Ran> {
  const env: NodeJS.ProcessEnv = { ...process.env, EASEL_DATA_DIR: dataDir, ...extraEnv };
  if (!("DATABASE_URL" in extraEnv)) delete env.DATABASE_URL;
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", path.join(ROOT, "lib/cli/main.ts"), ...args], { env, cwd: ROOT, encoding: "utf8", timeout: 300_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : null) : 0;
      resolve({ code, stdout, stderr, last: stdout.trim().split("\n").at(-1) ?? "" });
    });
  });
}

export type Harness = { child: ChildProcess; output: () => string; lines: (prefix: string) => string[]; waitFor: (prefix: string, timeoutMs?: number) => Promise<string> };

/** tests/backup/harness.ts as a server process on `dataDir`. */
export function startHarness(dataDir: string, env: Record<string, string>): Harness {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, EASEL_DATA_DIR: dataDir, ...env };
  delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "harness.ts")], { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const lines = (prefix: string) => output.split("\n").filter((l) => l.startsWith(prefix));
  const waitFor = async (prefix: string, timeoutMs = 180_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = lines(prefix)[0];
      if (line !== undefined) return line.slice(prefix.length).trim();
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no "${prefix}" from the harness (exit ${child.exitCode})\n${output.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return { child, output: () => output, lines, waitFor };
}

export async function stopHarness(h: Harness) {
  if (h.child.exitCode === null) h.child.kill("SIGTERM");
  await exited(h.child);
}
