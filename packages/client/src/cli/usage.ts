import { parseArgs, type ParseArgsConfig } from "node:util";

/** A command line the command cannot run: exit 2 with the message and the usage. */
export class UsageError extends Error {}

export const USAGE = `usage:
  easel-client upload <path…> --workspace <slug> [--board <token>] [--recursive] [--concurrency N] [--json]
  easel-client download <asset token> --workspace <slug> [--version N] [-o FILE]
  easel-client versions <asset token> --workspace <slug> [--json]
  easel-client revert <asset token> <version number> --workspace <slug> [--comment TEXT] [--json]

  Server and token: EASEL_URL and EASEL_TOKEN, or --url and --token; the workspace also from EASEL_WORKSPACE.`;

export const COMMON_OPTIONS = {
  url: { type: "string" },
  token: { type: "string" },
  workspace: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

export type Connection = { url: string; token: string; workspace: string };

/** Parses one command's arguments (strict: an unknown option is a usage error). */
export function parseCommand<O extends NonNullable<ParseArgsConfig["options"]>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options: { ...COMMON_OPTIONS, ...options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** The server, token and workspace from the options, else the environment. */
export function connectionOf(values: { url?: string; token?: string; workspace?: string }, env: NodeJS.ProcessEnv): Connection {
  const url = values.url ?? env.EASEL_URL;
  const token = values.token ?? env.EASEL_TOKEN;
  const workspace = values.workspace ?? env.EASEL_WORKSPACE;
  if (!url) throw new UsageError("no server: set EASEL_URL or give --url");
  if (!/^https?:\/\/[^\s]+$/.test(url)) throw new UsageError(`--url must be an http(s) URL, got ${JSON.stringify(url)}`);
  if (!token) throw new UsageError("no token: set EASEL_TOKEN or give --token");
  if (!workspace) throw new UsageError("no workspace: give --workspace <slug> (or set EASEL_WORKSPACE)");
  return { url, token, workspace };
}

/** A whole number in [min, max], or a usage error naming the option. */
export function intOption(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw new UsageError(`${name} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return Number(value);
}
