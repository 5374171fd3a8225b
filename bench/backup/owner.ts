/**
 * The data dir's owner for the backup benchmark: opens EASEL_DATA_DIR's embedded database as the
 * server does (so it answers `backup` on the data dir's control channel) and waits for SIGTERM.
 * Prints "owner:ready <pid>".
 */
import { openDb } from "../../lib/db/client";

const handle = await openDb({ dataDir: process.env.EASEL_DATA_DIR!, role: "server" });
console.log(`owner:ready ${process.pid}`);
await new Promise((resolve) => process.once("SIGTERM", resolve));
await handle.close();
process.exit(0);
