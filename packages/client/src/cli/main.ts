import { createClient } from "../client";
import { EaselError } from "../errors";
import { downloadCommand } from "./download-command";
import { uploadCommand } from "./upload-command";
import { connectionOf, intOption, parseCommand, USAGE, UsageError } from "./usage";
import { revertCommand, versionsCommand } from "./version-commands";

/**
 * `easel-client <command>`: exit 0 when nothing failed, 1 when something did, 2 for a usage
 * error (contract §15). Ctrl-C (or SIGTERM) aborts what is in flight and keeps the state of
 * each unfinished upload, so the same command continues it; a second Ctrl-C exits at once.
 */
async function main(argv: string[], signal: AbortSignal): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  switch (command) {
    case "upload": {
      const { values, positionals } = parseCommand(rest, { board: { type: "string" }, recursive: { type: "boolean", short: "r" }, concurrency: { type: "string" } });
      if (positionals.length === 0) throw new UsageError("upload: name at least one file or folder");
      const conn = connectionOf(values, process.env);
      const concurrency = intOption("--concurrency", values.concurrency, 1, 64) ?? 4;
      const client = createClient({ baseUrl: conn.url, token: conn.token });
      return uploadCommand(client, conn, { paths: positionals, board: values.board ?? null, recursive: values.recursive ?? false, concurrency, json: values.json ?? false }, signal);
    }
    case "download": {
      const { values, positionals } = parseCommand(rest, { version: { type: "string" }, output: { type: "string", short: "o" } });
      if (positionals.length !== 1) throw new UsageError("download: give one asset token");
      const conn = connectionOf(values, process.env);
      const version = intOption("--version", values.version, 1, 2 ** 31 - 1);
      return downloadCommand(createClient({ baseUrl: conn.url, token: conn.token }), conn, { asset: positionals[0], version, output: values.output }, signal);
    }
    case "versions": {
      const { values, positionals } = parseCommand(rest, {});
      if (positionals.length !== 1) throw new UsageError("versions: give one asset token");
      const conn = connectionOf(values, process.env);
      return versionsCommand(createClient({ baseUrl: conn.url, token: conn.token }), conn, { asset: positionals[0], json: values.json ?? false }, signal);
    }
    case "revert": {
      const { values, positionals } = parseCommand(rest, { comment: { type: "string" } });
      if (positionals.length !== 2) throw new UsageError("revert: give an asset token and a version number");
      const conn = connectionOf(values, process.env);
      const version = intOption("version number", positionals[1], 1, 2 ** 31 - 1)!;
      return revertCommand(createClient({ baseUrl: conn.url, token: conn.token }), conn, { asset: positionals[0], version, comment: values.comment, json: values.json ?? false }, signal);
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

const controller = new AbortController();
let interrupted = false;
const interrupt = (name: string) => {
  if (interrupted) process.exit(130);
  interrupted = true;
  process.stderr.write(`\neasel-client: ${name}: stopping; run the same command again to continue\n`);
  controller.abort(new EaselError(0, "aborted", `interrupted (${name})`));
};
process.on("SIGINT", () => interrupt("SIGINT"));
process.on("SIGTERM", () => interrupt("SIGTERM"));

main(process.argv.slice(2), controller.signal).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`easel-client: ${err.message}\n${USAGE}\n`);
      process.exitCode = 2;
    } else if (err instanceof EaselError) {
      process.stderr.write(`easel-client: ${err.code}: ${err.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(`easel-client: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    }
  },
);
