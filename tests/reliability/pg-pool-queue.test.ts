import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

/**
 * The PostgreSQL driver (postgres.js 3.4.9) keeps its connections in queues (open, busy, …) whose
 * shift() only marked the slot empty and started over when the queue ran dry. A pool whose
 * connections are all busy under sustained load (or never all idle) never runs dry, so the array
 * grew by one slot per query, and every remove() (two per query) scanned it from the start:
 * CPU per query grew with every query the process had ever run (26 → 81 µs after 200,000 queries
 * in bench/db/pool-queue.ts). Easel patches it at install (patches/postgres+3.4.9.patch,
 * docs/reliability.md); this file proves the patched queue keeps FIFO order, and that it stays
 * small: the arrays remove() searches are watched through Array.prototype.indexOf.
 */
type Queue<T> = { readonly length: number; push(x: T): T; shift(): T | undefined; remove(x: T): T | null };
type QueueFactory = <T>(initial?: T[]) => Queue<T>;

// The package's exports map does not list its internals: both builds' queues are loaded by path
// (Easel's server imports the ES module build; the CommonJS one is the package's default).
const require = createRequire(import.meta.url);
const commonJsQueue = require.resolve("postgres").replace(/index\.js$/, "queue.js");
const builds: [string, QueueFactory][] = [
  ["CommonJS", require(commonJsQueue) as QueueFactory],
  ["ES module", ((await import(pathToFileURL(commonJsQueue.replace("/cjs/src/", "/src/")).href)) as { default: QueueFactory }).default],
];

const indexOf = Array.prototype.indexOf;
afterEach(() => {
  Array.prototype.indexOf = indexOf;
});

describe.each(builds)("postgres.js connection queues (%s build)", (_build, Queue) => {
  it("keep FIFO order and their length through shifts, pushes and removals, as a plain array does", () => {
    const queue = Queue<number>();
    const model: number[] = [];
    let next = 0;
    // A fixed pseudo-random walk: the same operations every run.
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (let step = 0; step < 50_000; step++) {
      const roll = random();
      if (roll < 0.45 || model.length === 0) {
        queue.push(next);
        model.push(next++);
      } else if (roll < 0.85) {
        expect(queue.shift()).toBe(model.shift());
      } else {
        const victim = model[Math.floor(random() * model.length)];
        expect(queue.remove(victim)).toBe(victim);
        model.splice(model.indexOf(victim), 1);
        expect(queue.remove(victim)).toBeNull();
      }
      expect(queue.length).toBe(model.length);
    }
    while (model.length) expect(queue.shift()).toBe(model.shift());
    expect(queue.length).toBe(0);
  });

  it("stay small when never empty: a connection moving between busy and open 200,000 times", () => {
    const busy = Queue<object>();
    const connections = Array.from({ length: 4 }, () => ({}));
    for (const c of connections) busy.push(c);
    let largestSearched = 0;
    Array.prototype.indexOf = function (this: unknown[], ...args: Parameters<typeof indexOf>) {
      largestSearched = Math.max(largestSearched, this.length);
      return indexOf.apply(this, args);
    } as typeof indexOf;
    // What the pool does when every connection is busy: a query goes to the longest-busy one
    // (shift, then push it back), and a connection that finishes is removed (then pushed when
    // busy again). The queue always holds connections, so it never starts over on its own.
    for (let i = 0; i < 200_000; i++) {
      const c = busy.shift()!;
      busy.remove(c);
      busy.push(c);
      const done = connections[i % connections.length];
      if (busy.remove(done)) busy.push(done);
    }
    Array.prototype.indexOf = indexOf;
    expect(busy.length).toBe(connections.length);
    // Unpatched, the array grew by a slot per shift: 200,004 at the end.
    expect(largestSearched).toBeLessThan(200);
  });
});
