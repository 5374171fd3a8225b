import { systemClock, type Clock } from "./clock";
import { serverDb, type Db } from "./db";

/** The ports domain functions take first. Production builds them from the environment; tests pass their own. */
export type Deps = { db: Db; clock: Clock };

type Holder = { __easelDeps?: Deps | null };
const holder = globalThis as Holder;

export async function getDeps(): Promise<Deps> {
  if (holder.__easelDeps) return holder.__easelDeps;
  const { db } = await serverDb();
  return { db, clock: systemClock };
}

/** Tests install their own deps (a test database, a recording job sender, a fixed clock). */
export function setDeps(deps: Deps | null) {
  holder.__easelDeps = deps;
}
