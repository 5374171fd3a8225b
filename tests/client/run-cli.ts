import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { repoRoot } from "../../bench/scale/cluster";

/** The command as `npx easel-client` runs it: the package's bin through Node, from the checkout. */
export const CLIENT_BIN = path.join(repoRoot, "packages/client/bin/easel-client.js");

export type CliRun = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };
export type CliEnv = { url: string; token: string; stateHome: string };

/** Starts the command with only this environment (a state folder of the test's own, no terminal). */
export function spawnCli(env: CliEnv, args: string[]): { child: ChildProcess; done: Promise<CliRun> } {
  const child = spawn(process.execPath, [CLIENT_BIN, ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: env.stateHome, XDG_STATE_HOME: env.stateHome, EASEL_URL: env.url, EASEL_TOKEN: env.token } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

export const runCli = (env: CliEnv, args: string[]) => spawnCli(env, args).done;

export const describeRun = (args: string[], r: CliRun) => `easel-client ${args.join(" ")} exited ${r.code ?? r.signal}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

/** stdout's lines, split into their words (`<status> <path> <token>`; paths here have no spaces). */
export const outcomeLines = (stdout: string) =>
  stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(" "));
