import type { Db } from "../db";
import { isSingleSession } from "../db";
import { LIVE_CHANNEL } from "./message";

type PgliteClient = { listen: (channel: string, cb: (payload: string) => void) => Promise<() => Promise<void>> };
type PostgresClient = {
  listen: (channel: string, cb: (payload: string) => void, onlisten?: () => void) => Promise<{ unlisten: () => Promise<void> }>;
};

/**
 * LISTENs on the live channel of this process's database. On PostgreSQL postgres.js keeps one
 * connection of its own for it and listens again after that connection is lost: `onRelisten` runs
 * then, since notifications sent while it was down are lost for good. PGlite is one session in this
 * process and delivers a notification once the transaction that sent it commits.
 */
export async function listenLive(db: Db, onPayload: (payload: string) => void, onRelisten: () => void): Promise<() => Promise<void>> {
  const client = (db as unknown as { $client: unknown }).$client;
  if (isSingleSession(db)) return (client as PgliteClient).listen(LIVE_CHANNEL, onPayload);
  let listening = false;
  const { unlisten } = await (client as PostgresClient).listen(LIVE_CHANNEL, onPayload, () => {
    if (listening) onRelisten();
    listening = true;
  });
  return unlisten;
}
