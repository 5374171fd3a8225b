import { createLogger, setLogger } from "../log/logger.mjs";

/**
 * Imported first by main.ts, before any other module runs: the library code a command calls logs
 * JSON lines like the server's, and they go to stderr, so that stdout carries only the command's
 * output (scripts read its last line). EASEL_LOG_LEVEL and EASEL_LOG_FORMAT apply as on the server;
 * a bad value stops the command with its message, as it stops the server.
 */
try {
  setLogger(createLogger({ destination: process.stderr }));
} catch (err) {
  process.stderr.write(`error: ${(err as Error).message}\n`);
  process.exit(1);
}
