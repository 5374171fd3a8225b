import type { Clock } from "./clock";
import type { Db } from "./db";

/**
 * The deps a test installed (`setDeps` in lib/deps.ts), on a global so that every bundle of the
 * app sees the same ones. Its own module so that the jobs client, which stores events in the
 * database the deps name, can read them without importing lib/deps.ts (which imports the job
 * senders, which import the client).
 */
type Installed = { db: Db; clock: Clock };
type Holder = { __easelDeps?: Installed | null };
const holder = globalThis as Holder;

export function installedDeps<T extends Installed>(): T | null {
  return (holder.__easelDeps as T | null | undefined) ?? null;
}

export function installDeps(deps: Installed | null) {
  holder.__easelDeps = deps;
}
