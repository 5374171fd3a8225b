import "./log-to-stderr";
import { env } from "../env";
import { DomainError } from "../errors";
import { readableErrorMessage } from "../log/logger.mjs";
import { STANDALONE_COMMANDS } from "./backup-commands";
import { printErr, printOut } from "./io";

/**
 * `npm run easel -- <command>`: the admin CLI. It reads the same environment as the server
 * (DATABASE_URL or EASEL_DATA_DIR). On the embedded database it goes through the running server's
 * socket instead of opening the data dir a second time. Every command is a single statement, so it
 * never holds a transaction open on the server's one PGlite session. `backup` and `restore` open
 * no database here first (backup-commands.ts), and load neither the database nor the other
 * commands' code.
 */
async function main(argv: string[]): Promise<number> {
  const standalone = STANDALONE_COMMANDS[argv[0]];
  if (standalone) return standalone.run(argv.slice(1), { out: printOut });
  const [{ openDb }, { COMMANDS, UsageError }] = await Promise.all([import("../db/client"), import("./commands")]);
  const key = argv.slice(0, 2).join(" ");
  const command = COMMANDS[key];
  if (!command) {
    const usages = [...Object.values(COMMANDS), ...Object.values(STANDALONE_COMMANDS)].map((c) => `  npm run easel -- ${c.usage}`);
    printErr(`unknown command "${key}"\ncommands:\n${usages.join("\n")}`);
    return 2;
  }
  const handle = await openDb({ databaseUrl: env().DATABASE_URL, dataDir: env().dataDir, role: "tool" });
  try {
    await command.run(handle.db, argv.slice(2), { out: printOut });
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      printErr(err.message);
      return 2;
    }
    if (err instanceof DomainError) {
      printErr(`error: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await handle.close();
  }
}

// Anything else that fails a command (a refused restore, an unreachable server) exits 1 with its message.
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    // A failed query's message names the statement (its values hidden); its cause says why it failed.
    printErr(`error: ${readableErrorMessage(err)}`);
    process.exit(1);
  },
);
