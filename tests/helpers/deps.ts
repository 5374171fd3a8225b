import type { Clock } from "../../lib/clock";
import { setDeps, type Deps } from "../../lib/deps";
import { testDb } from "./db";

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

/** Installs this file's test database and a movable clock as the app's deps. */
export async function useTestDeps(): Promise<Deps & { time: ReturnType<typeof testClock> }> {
  const { db } = await testDb();
  const time = testClock();
  const deps: Deps = { db, clock: time.clock };
  setDeps(deps);
  return { ...deps, time };
}
