import type { Db } from "../db";
import { onShutdown, onStopSignal } from "../server/shutdown";
import { LiveHub } from "./hub";

type Holder = { __easelLiveHubs?: WeakMap<Db, Promise<LiveHub>> };

/**
 * This process's hub for a database, started at the first stream (a node that nobody watches
 * keeps no LISTEN connection). On globalThis: Next.js loads each route bundle as its own module
 * graph, and every stream of the process must share one LISTEN.
 */
export function liveHub(db: Db): Promise<LiveHub> {
  const hubs = ((globalThis as Holder).__easelLiveHubs ??= new WeakMap());
  let hub = hubs.get(db);
  if (!hub) {
    hub = (async () => {
      const h = new LiveHub(db);
      await h.start();
      onStopSignal("live update streams", () => void h.stop());
      onShutdown("live update streams", () => h.stop());
      return h;
    })();
    // A hub that failed to start is not kept: the caller gets the error, the next stream tries again.
    void hub.catch(() => hubs.delete(db));
    hubs.set(db, hub);
  }
  return hub;
}
