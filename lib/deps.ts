import { systemClock, type Clock } from "./clock";
import { serverDb, type Db } from "./db";
import type { StorageKind } from "./db/schema";
import { installDeps, installedDeps } from "./installed-deps";
import { jobsMode } from "./jobs/mode";
import { embeddedJobSender, inngestJobSender, type JobSender } from "./jobs/send";
import { storageFor } from "./storage";
import type { StorageDriver } from "./storage/types";

/** The storage of a workspace kind, presigning URLs on `baseUrl` (the origin clients reach). */
export type StorageResolver = (kind: StorageKind, baseUrl: string) => StorageDriver;

/** The ports domain functions take first. Production builds them from the environment; tests pass their own. */
export type Deps = { db: Db; clock: Clock; jobs: JobSender; storage: StorageResolver };

export async function getDeps(): Promise<Deps> {
  const installed = installedDeps<Deps>();
  if (installed) return installed;
  const { db } = await serverDb();
  const clock = systemClock;
  // Embedded: the executor's events live in this database, so the outbox stores them there in one transaction.
  const jobs = jobsMode() === "embedded" ? embeddedJobSender() : inngestJobSender();
  return { db, clock, jobs, storage: (kind, baseUrl) => storageFor(kind, { baseUrl, db, clock }) };
}

/** Tests install their own deps (a test database, a recording job sender, the embedded store in a folder of their own, a movable clock). */
export function setDeps(deps: Deps | null) {
  installDeps(deps);
}
