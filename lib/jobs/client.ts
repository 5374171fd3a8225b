import { Inngest, type ClientOptions } from "inngest";
import { systemClock } from "../clock";
import { serverDb, type Db } from "../db";
import { installedDeps } from "../installed-deps";
import { getSecret } from "../secrets";
import { EMBEDDED_BASE_URL, embeddedFetch, type EventSink } from "./executor/event-api";
import { signingKeyFromSecret } from "./executor/signing";
import { JobLogContext, sdkLogger } from "./log-context";
import { jobsMode } from "./mode";

/**
 * Options of an Inngest client for the current mode. Embedded: cloud mode (signed calls only: in
 * dev mode the serve route would run anyone's unsigned request), events to the in-process event
 * API, and a signing key set once the database is open (`useSigningKey`).
 */
export function jobsClientOptions(sink: EventSink): Partial<ClientOptions> {
  if (jobsMode() === "inngest") return {};
  return { isDev: false, baseUrl: EMBEDDED_BASE_URL, eventKey: "embedded", fetch: embeddedFetch(sink) };
}

/**
 * The database and clock of the app's deps (lib/deps.ts getDeps: a test's installed deps, else
 * the server's database and the system clock), read without importing lib/deps.ts, which imports
 * the job senders and through them this client.
 */
const appSink: EventSink = async () => installedDeps() ?? { db: (await serverDb()).db, clock: systemClock };

/**
 * Easel's one Inngest client. Domain code never imports it: it sends through `deps.jobs` (lib/jobs/send.ts).
 * Its functions log with their run's id and name (JobLogContext), and the SDK logs through Easel's logger.
 */
export const inngest = new Inngest({ id: "easel", ...jobsClientOptions(appSink), logger: sdkLogger, middleware: [JobLogContext] });

const keyed = new WeakMap<Inngest.Any, Promise<void>>();

/**
 * The embedded signing key is a generated secret kept in the database (shared by every node), so
 * it reaches the client at run time, as an env var would (`setEnvVars` is the SDK's way to do so).
 */
export function useSigningKey(client: Inngest.Any, db: Db): Promise<void> {
  if (jobsMode() === "inngest") return Promise.resolve();
  const known = keyed.get(client);
  if (known) return known;
  const ready = getSecret(db, "jobs_signing_key").then((secret) => {
    client.setEnvVars({ INNGEST_SIGNING_KEY: signingKeyFromSecret(secret) });
  });
  ready.catch(() => keyed.delete(client));
  keyed.set(client, ready);
  return ready;
}
