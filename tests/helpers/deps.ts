import type { Clock } from "../../lib/clock";
import { setDeps, type Deps } from "../../lib/deps";
import { recordingJobSender } from "../../lib/jobs/send";
import { testDb } from "./db";
import { MemoryStorage } from "./memory-storage";

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

/** Installs this file's test database, a movable clock, recorded jobs and memory storage as the app's deps. */
export async function useTestDeps(opts: { isolated?: boolean } = {}) {
  const { db } = await testDb(opts);
  const time = testClock();
  const jobs = recordingJobSender();
  const storage = { s3: new MemoryStorage("s3"), gcs: new MemoryStorage("gcs") };
  const deps: Deps = { db, clock: time.clock, jobs, storage: (kind) => storage[kind] };
  setDeps(deps);
  return { ...deps, time, jobs, memory: storage };
}
