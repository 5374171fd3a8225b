/**
 * Which fair keys (a run's first concurrency group: its workspace, for Easel's jobs) this executor
 * started lately, in order: the claim serves the key served least recently first (queue.ts), so a
 * workspace that has just had a turn waits behind one that has not.
 *
 * Kept in memory rather than in a table: it is only an ordering hint (a restart forgets it and
 * the next claims fall back to arrival order), it costs the claim one parameter instead of a
 * write per start, and it needs no migration. Bounded: only the last `capacity` keys are
 * remembered; a key not among them has not been served for `capacity` starts and counts as the
 * oldest, tied with the others by arrival. On several nodes each node rotates its own turns.
 */
export class RecentTurns {
  private readonly order = new Map<string, number>();
  private counter = 0;

  constructor(private readonly capacity = 128) {}

  /** A run of `key` started (null: a run without concurrency groups, the key ""). */
  record(key: string | null) {
    const k = key ?? "";
    // Re-inserting moves the key to the end of the map's order: the map is its own recency list.
    this.order.delete(k);
    this.order.set(k, ++this.counter);
    if (this.order.size > this.capacity) this.order.delete(this.order.keys().next().value!);
  }

  /** [key, turn] pairs, a higher turn more recent: the claim's `turns` parameter. */
  recent(): [string, number][] {
    return [...this.order];
  }
}
