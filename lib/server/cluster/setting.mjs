// @ts-check
import os from "node:os";

/**
 * EASEL_WORKERS: how many server processes `npm start` runs on its port. Unset (or "auto"): one
 * per core on PostgreSQL (`DATABASE_URL`), one on the embedded database. PGlite is one database
 * session inside one process (it owns the data dir), so more than one worker on it is refused
 * rather than quietly reduced: the operator asked for something that cannot be had. The test clock
 * (EASEL_TEST_CLOCK) moves the clock of the process that answered only, so with it the default is
 * one worker too, and more are refused.
 *
 * @param {{ value?: string, databaseUrl?: string, cores?: number, testClock?: string }} [input] defaults: the environment and the machine
 * @returns {number}
 */
export function workersFromEnv(input = {}) {
  const value = "value" in input ? input.value : process.env.EASEL_WORKERS;
  const databaseUrl = "databaseUrl" in input ? input.databaseUrl : process.env.DATABASE_URL;
  const cores = input.cores ?? os.availableParallelism();
  const testClock = ["1", "true", "yes"].includes(("testClock" in input ? input.testClock : process.env.EASEL_TEST_CLOCK) ?? "");
  const postgres = databaseUrl !== undefined && databaseUrl !== "";
  const raw = value?.trim();
  if (raw === undefined || raw === "" || raw === "auto") return postgres && !testClock ? Math.max(1, cores) : 1;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_WORKERS) {
    throw new Error(`EASEL_WORKERS must be a whole number from 1 to ${MAX_WORKERS}, or "auto" (one per core on PostgreSQL), got "${value}"`);
  }
  const n = Number(raw);
  if (n > 1 && !postgres) {
    throw new Error(`EASEL_WORKERS=${n} needs PostgreSQL (DATABASE_URL): the embedded database is served by one process, so without DATABASE_URL set EASEL_WORKERS=1 or leave it unset`);
  }
  if (n > 1 && testClock) throw new Error(`EASEL_WORKERS=${n} cannot run with EASEL_TEST_CLOCK: the test clock moves one process's clock only; set EASEL_WORKERS=1`);
  return n;
}

/** A bound that catches a typo (a port number, a byte count) before it forks hundreds of processes. */
export const MAX_WORKERS = 256;
