import type { Clock } from "../../lib/clock";
import { setDeps, type Deps } from "../../lib/deps";
import { recordingJobSender } from "../../lib/jobs/send";
import { testDb } from "./db";
import { resolverOf, testStores } from "./test-storage";

/** A clock tests can move: starts at real time, `set` / `advance` shift it. */
export function testClock() {
  let offset = 0;
  const clock: Clock = () => new Date(Date.now() + offset);
  return {
    clock,
    set: (d: Date) => (offset = d.getTime() - Date.now()),
    advance: (ms: number) => (offset += ms),
    reset: () => (offset = 0),
  };
}

/**
 * Installs this file's test database, a movable clock, recorded jobs and the real embedded store
 * (in a folder of this call's own) as the app's deps; `store` is each storage kind as tests use it.
 */
export async function useTestDeps(opts: { isolated?: boolean } = {}) {
  const { db } = await testDb(opts);
  const time = testClock();
  const jobs = recordingJobSender();
  const store = testStores(db, time.clock);
  const deps: Deps = { db, clock: time.clock, jobs, storage: resolverOf(store) };
  setDeps(deps);
  return { ...deps, time, jobs, store };
}
