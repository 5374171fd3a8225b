import { deliver, type RelayDeps } from "./deliver";
import { pausedForMs, recordFailure } from "./state";
import { testPauseBeforeHandOff } from "./test-pause";

/**
 * Right after a write commits: hands its stored events on now, so that jobs and webhooks start
 * without waiting for the relay's next round. Never throws and never drops: an event that cannot
 * be handed on now stays in the outbox, and the relay (lib/jobs/outbox/relay.ts) retries it. While
 * this process is pausing after a failure, writes do not try at all (they would only wait on an
 * unreachable job system); the relay hands their events on when the pause ends.
 */
export async function handOff(deps: RelayDeps, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await testPauseBeforeHandOff(ids);
  if (pausedForMs() > 0) return;
  try {
    await deliver(deps, { ids });
  } catch (err) {
    // The database failed after the commit: the rows are kept as they were, for the relay.
    recordFailure(`after a commit: ${(err as Error).message}`);
  }
}
