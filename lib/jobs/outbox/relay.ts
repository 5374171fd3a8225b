import { deliver, type RelayDeps } from "./deliver";
import { onRelayWake, pausedForMs, recordFailure, setRetryDelay } from "./state";

export type RelayOptions = {
  /** The ports to hand on with, looked up each round (tests install theirs with setDeps). */
  deps: () => Promise<RelayDeps>;
  /** How often to look for events left over (a crash between commit and hand-off, another node's). */
  pollMs?: number;
  /** Rows per round. */
  batchSize?: number;
  /** Backoff after failures in a row (and of a row after its failed attempts). */
  retryDelayMs?: (failures: number) => number;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The outbox relay: hands on every event left in the outbox, oldest first. Writes hand their own
 * events on right after their commit (hand-off.ts); the relay is for the rest: events of a write
 * whose process died before its hand-off (it looks at once when it starts, so a restart sends
 * them), and events that failed while the job system was unreachable (it retries with backoff
 * until they go through). Relays on several nodes share the outbox without sending a row twice
 * at once (see store.ts).
 */
export class OutboxRelay {
  private readonly o: Required<Omit<RelayOptions, "retryDelayMs">>;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private pending = false;
  private unsubscribe: (() => void) | null = null;

  constructor(options: RelayOptions) {
    this.o = { pollMs: 1000, batchSize: 100, ...options };
    if (options.retryDelayMs) setRetryDelay(options.retryDelayMs);
  }

  start() {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = onRelayWake(() => this.poke());
    this.loop = this.main();
  }

  /** Stops after the round under way (waiting at most `graceMs`); what is left is sent by the next start. */
  async stop(graceMs = 5_000) {
    if (!this.running) return;
    this.running = false;
    this.unsubscribe?.();
    this.poke();
    await Promise.race([this.loop, sleep(graceMs)]);
  }

  /** Looks now rather than at the next poll. */
  poke() {
    this.pending = true;
    this.wake?.();
  }

  /** One round: hands on up to a batch of due rows. Answers whether a full batch went (more may wait). */
  async round(): Promise<boolean> {
    try {
      const result = await deliver(await this.o.deps(), { due: this.o.batchSize });
      return result.failed === 0 && result.taken >= this.o.batchSize;
    } catch (err) {
      // The database failed: the rows stay as they were; pause, then try again.
      recordFailure(`relay: ${(err as Error).message}`);
      return false;
    }
  }

  private async main() {
    while (this.running) {
      this.pending = false;
      const paused = pausedForMs();
      if (paused > 0) {
        await this.idle(paused);
        continue;
      }
      if (await this.round()) continue;
      await this.idle(this.o.pollMs);
    }
  }

  private idle(ms: number): Promise<void> {
    if (this.pending || !this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }
}

/** Starts a relay in the background (the server's boot does, lib/boot.ts). */
export function startOutboxRelay(options: RelayOptions): OutboxRelay {
  const relay = new OutboxRelay(options);
  relay.start();
  return relay;
}
