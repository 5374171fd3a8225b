import { serverDb } from "../db";
import { log } from "../log/logger.mjs";

/**
 * The app's part of a graceful stop, run by Easel's server (lib/server/start.mjs) once requests in
 * flight have finished: whatever boot started registers how to stop it (the job executor lets its
 * steps finish, the outbox relay its round), then the database is closed, which on the embedded
 * default also gives the data dir back.
 */
type Stopper = { name: string; stop: (graceMs: number) => Promise<void> };
type State = { stoppers: Stopper[] };
const state: State = ((globalThis as { __easelShutdown?: State }).__easelShutdown ??= { stoppers: [] });

const SERVER_MARKER = Symbol.for("easel.clientAddressHeader");
const KEY = Symbol.for("easel.shutdown");

/** Registers how to stop something boot started. */
export function onShutdown(name: string, stop: (graceMs: number) => Promise<void>) {
  state.stoppers.push({ name, stop });
  // Without Easel's server (`next dev`, `next start`) nobody runs the shutdown: stop on the signal itself.
  if (!(globalThis as { [SERVER_MARKER]?: string })[SERVER_MARKER]) {
    const now = () => void stop(5_000);
    process.once("SIGTERM", now);
    process.once("SIGINT", now);
  }
}

/**
 * Registers how to end requests that never finish by themselves (live update streams): run the
 * moment a stop signal arrives, before the server waits for requests in flight, which would
 * otherwise wait on them for the whole grace period.
 */
export function onStopSignal(name: string, end: () => void) {
  const now = () => {
    try {
      end();
    } catch (err) {
      log().error({ component: "shutdown", part: name, err }, "ending long-lived requests failed; the stop goes on");
    }
  };
  process.once("SIGTERM", now);
  process.once("SIGINT", now);
}

export async function shutdownApp(graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  await Promise.all(
    state.stoppers.splice(0).map(async ({ name, stop }) => {
      try {
        await stop(Math.max(0, deadline - Date.now()));
      } catch (err) {
        log().error({ component: "shutdown", part: name, err }, "stopping a part of the app failed; the stop goes on");
      }
    }),
  );
  const db = await serverDb().catch((err: Error) => {
    // Nothing to close: the database never opened in this process.
    log().warn({ component: "shutdown", reason: err.message }, "no database to close: it never opened in this process");
    return null;
  });
  await db?.close();
}

/** Hands the shutdown to Easel's HTTP server (plain Node.js, which cannot import this bundled code). */
export function publishShutdown() {
  (globalThis as { [KEY]?: (graceMs: number) => Promise<void> })[KEY] = shutdownApp;
}
