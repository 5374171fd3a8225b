/** Runs once when the server process starts: open (and migrate) the database before the first request. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // `next build` loads this too while collecting pages: a build must not take the data dir (and its
  // lock) that a running or soon-started server owns, nor start the job executor.
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  const [{ boot }, { publishDirectRoutes }, { publishReadiness }, { publishShutdown }, { publishClusterHooks }] = await Promise.all([
    import("./lib/boot"),
    import("./lib/server/direct-routes"),
    import("./lib/server/readiness"),
    import("./lib/server/shutdown"),
    import("./lib/server/cluster/app-hooks"),
  ]);
  await boot();
  publishDirectRoutes();
  publishShutdown();
  publishReadiness();
  // One of several workers (EASEL_WORKERS): the executor's hand-over and its wake-ups across processes.
  publishClusterHooks();
}
