import { serverDb } from "./db";

/**
 * Server start-up: open the database (applying migrations; on the embedded default this also takes
 * ownership of the data dir and serves it on a socket for the CLI). A second server on the same
 * embedded data dir fails here with a clear message and the process exits.
 */
export async function boot() {
  try {
    const { driver } = await serverDb();
    console.log(`[easel] database ready (${driver})`);
  } catch (err) {
    console.error(`[easel] cannot start: ${(err as Error).message}`);
    process.exit(1);
  }
}
