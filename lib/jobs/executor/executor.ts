import crypto from "node:crypto";
import type { Clock } from "../../clock";
import type { Db } from "../../db";
import type { JobFunction } from "../../db/schema/jobs";
import { log } from "../../log/logger.mjs";
import { countJobRun } from "../../metrics/registry.mjs";
import { checkpointItemId } from "./checkpoint-id";
import { provideLocalSlots, type SlotOffer } from "./local-slots";
import { callBody, interpretAnswer, type CallAnswer, type Outcome } from "./protocol";
import { onWork, notifyWork } from "./signal";
import { signedBody } from "./signing";
import { fireDueCrons, nextCronAt } from "./store/crons";
import { dropItem, functionCache, loadCallState, markRunStarted, type CallState } from "./store/load";
import { claimBatch, releaseAllLeases, renewLease, type Claim, type ClaimedItem } from "./store/queue";
import { settleCall, settleWake, unlease, type SettleInput, type Settled } from "./store/settle";
import { syncFunctions } from "./sync";
import type { Transport } from "./transport";
import { RecentTurns } from "./turns";

export type ExecutorOptions = {
  db: Db;
  clock: Clock;
  signingKey: string;
  /** The serve route, e.g. http://127.0.0.1:3000/api/inngest. */
  serveUrl: string;
  transport: Transport;
  /** Calls in flight at once on this node: the global limit. */
  concurrency?: number;
  pollMs?: number;
  leaseMs?: number;
  /** Delay before retry number `attempt` (1 = first retry). */
  backoffMs?: (attempt: number) => number;
  /** Only when this process is the database's sole user (embedded PGlite): leases left over are from its own previous life. */
  reclaimLeasesOnStart?: boolean;
  /** Where the executor reports; the process's logger by default. `fields` are structured context (`err`, `run_id`). */
  log?: ExecutorLog;
};

type Fields = Record<string, unknown>;
/** A call slot: the queue item whose lease it holds now. */
type Worker = { item: ClaimedItem };
export type ExecutorLog = { info: (msg: string, fields?: Fields) => void; warn: (msg: string, fields?: Fields) => void; error: (msg: string, fields?: Fields) => void };

/** The process's logger, every line marked as the job executor's. */
const processLog: ExecutorLog = {
  info: (msg, fields) => log().info({ component: "jobs", ...fields }, msg),
  warn: (msg, fields) => log().warn({ component: "jobs", ...fields }, msg),
  error: (msg, fields) => log().error({ component: "jobs", ...fields }, msg),
};

/** 10 s, 20 s, 40 s … capped at one hour, ±20 % so that failures of many runs spread out. */
export function defaultBackoffMs(attempt: number): number {
  const base = Math.min(10_000 * 2 ** (attempt - 1), 3_600_000);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function withStepId(url: string, stepId: string): string {
  const u = new URL(url);
  u.searchParams.set("stepId", stepId);
  return u.href;
}

/**
 * The embedded durable executor: syncs the serve route's functions, then leases due queue items
 * and makes their calls, up to `concurrency` at once, settling each answer in the database.
 * Everything it knows is in the database, so a process killed at any point loses at most the
 * calls in flight, which run again (at-least-once per step; a memoized step never runs again).
 */
export class Executor {
  private readonly o: Required<Omit<ExecutorOptions, "log">> & { log: NonNullable<ExecutorOptions["log"]> };
  private running = false;
  private loop: Promise<void> | null = null;
  /** Calls in flight, with the queue item each holds the lease of (a worker moves on to the items its settles claim). */
  private readonly inFlight = new Map<Promise<void>, Worker>();
  private wake: (() => void) | null = null;
  private pending = false;
  private unsubscribe: (() => void) | null = null;
  private nextCronCheck = 0;
  private readonly functions: ReturnType<typeof functionCache>;
  /** Slots promised to the event API (local-slots.ts) and not yet adopted or released. */
  private reserved = 0;
  /**
   * The last look at the queue (a claim, or a settle's claim) found nothing more due: a new run may
   * then skip the queue and be leased by its own insert. A backlog (a claim that filled every slot
   * it asked for, a settle that found a next item) turns it off until a look finds the queue
   * drained, so new runs never pass a backlog; at most a run sent a moment earlier, not yet
   * claimed, starts after one leased by its insert.
   */
  private caughtUp = false;
  /** The loop found free slots all promised to an offer: the offer's end must wake it (unused slots come back). */
  private waitingForOffers = false;
  private withdrawSlots: (() => void) | null = null;
  /** The fair keys this executor started lately: claims serve the least recently served first. */
  private readonly turns = new RecentTurns();

  constructor(options: ExecutorOptions) {
    this.o = {
      concurrency: 4,
      pollMs: 1000,
      leaseMs: 30_000,
      backoffMs: defaultBackoffMs,
      reclaimLeasesOnStart: false,
      log: processLog,
      ...options,
    } as Executor["o"];
    this.functions = functionCache(options.db);
  }

  /** Starts in the background: the first sync is retried until the serve route answers (the server may not listen yet). */
  start() {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = onWork(() => this.poke());
    this.withdrawSlots = provideLocalSlots(this.o.db, this);
    this.loop = this.main().catch((err) => this.o.log.error(`executor stopped: ${(err as Error).message}`, { err }));
  }

  /**
   * Stops leasing and waits for calls in flight up to `graceMs`. A call still running then gives
   * its lease back: its run resumes at once on another node, or on this one's next start, instead
   * of waiting for the lease to run out; the late answer of the abandoned call is dropped (its
   * settle no longer holds the lease).
   */
  async stop(graceMs = 10_000) {
    if (!this.running) return;
    this.running = false;
    this.unsubscribe?.();
    this.withdrawSlots?.();
    this.poke();
    // The loop first: a claim it had under way becomes one more call in flight.
    const drained = (async () => {
      await this.loop;
      await Promise.all([...this.inFlight.keys()]);
    })();
    const inTime = await Promise.race([drained.then(() => true), sleep(graceMs).then(() => false)]);
    if (inTime || this.inFlight.size === 0) return;
    const abandoned = [...this.inFlight.values()].map((worker) => worker.item);
    const released = await Promise.all(
      abandoned.map((item) =>
        unlease(this.o.db, item).then(
          () => true,
          (err: Error) => {
            this.o.log.warn(`run ${item.runId}: could not give back the lease of a call still running at shutdown; it runs again when the lease ends`, { err, run_id: item.runId });
            return false;
          },
        ),
      ),
    );
    this.o.log.info(`stopped with ${abandoned.length} call(s) still running: ${released.filter(Boolean).length} lease(s) given back, their runs resume on the next start`, {
      runs: abandoned.map((item) => item.runId),
    });
  }

  /** Looks for work now rather than at the next poll. */
  poke() {
    this.pending = true;
    this.wake?.();
  }

  /**
   * Offers this node's free slots to an insert of new runs (local-slots.ts), only when caught up:
   * otherwise due items wait in the queue and the loop takes them first, in order.
   */
  offerSlots(): SlotOffer | null {
    const free = this.o.concurrency - this.inFlight.size - this.reserved;
    if (!this.running || !this.caughtUp || free < 1) return null;
    this.reserved += free;
    let open = true;
    const close = () => {
      if (!open) return false;
      open = false;
      this.reserved -= free;
      // Work that came meanwhile (a concurrent send without an offer) waited for these slots.
      if (this.waitingForOffers) {
        this.waitingForOffers = false;
        this.poke();
      }
      return true;
    };
    return {
      token: crypto.randomUUID(),
      leaseMs: this.o.leaseMs,
      limit: free,
      adopt: (claims) => {
        if (!close()) return;
        for (const claim of claims) this.spawn(claim);
      },
      release: () => void close(),
    };
  }

  /** A worker for a claimed item; an item claimed while stopping is given back. */
  private spawn(claim: Claim) {
    if (!this.running) {
      unlease(this.o.db, claim.item).catch((err: Error) =>
        this.o.log.warn(`run ${claim.item.runId}: could not give back a lease taken while stopping; it runs again when the lease ends`, { err, run_id: claim.item.runId }),
      );
      return;
    }
    this.turns.record(claim.fairKey ?? null);
    const worker: Worker = { item: claim.item };
    const task: Promise<void> = this.process(worker, claim.state).then(
      (quiet) => this.finished(task, quiet),
      () => this.finished(task, false),
    );
    this.inFlight.set(task, worker);
  }

  async sync() {
    const fns = await syncFunctions({ ...this.o, now: this.o.clock() });
    this.functions.clear();
    return fns;
  }

  private async main() {
    for (let delay = 250; this.running; delay = Math.min(delay * 2, 10_000)) {
      try {
        const fns = await this.sync();
        this.o.log.info(`embedded executor synced ${fns.length} function(s)`, { functions: fns.length, serve_url: this.o.serveUrl });
        break;
      } catch (err) {
        if (delay >= 4000) this.o.log.warn(`waiting for the serve route: ${(err as Error).message}`, { err });
        // Events sent meanwhile must not turn this wait into a busy loop: they wait for the sync.
        this.pending = false;
        await this.idle(delay);
      }
    }
    if (this.running && this.o.reclaimLeasesOnStart) {
      const n = await releaseAllLeases(this.o.db);
      if (n) this.o.log.info(`resumed ${n} call(s) interrupted by the previous shutdown`, { calls: n });
    }
    // A failing loop (the database unreachable) retries with a growing pause, up to five polls, and
    // logs the first failure of a run of them, every tenth after it, and the recovery: an outage
    // leaves a few lines in the log, not one per poll.
    let failures = 0;
    while (this.running) {
      try {
        await this.tick();
        if (failures) this.o.log.info(`executor loop running again after ${failures} failed attempt(s)`, { failures });
        failures = 0;
      } catch (err) {
        failures++;
        if (failures === 1 || failures % 10 === 0) this.o.log.error(`executor loop (attempt ${failures}): ${(err as Error).message}`, { err, failures });
        await this.idle(this.o.pollMs * Math.min(5, 2 ** (failures - 1)));
      }
    }
  }

  private async tick() {
    this.pending = false;
    const now = this.o.clock();
    if (now.getTime() >= this.nextCronCheck) {
      await fireDueCrons(this.o.db, now);
      const next = await nextCronAt(this.o.db);
      this.nextCronCheck = Math.min(next ? next.getTime() : Infinity, now.getTime() + 60_000);
    }
    // One statement claims every free slot's item and loads what their calls need, and tells when
    // the earliest item not yet due falls due; when work is queued the loop comes straight back
    // here (a finished call pokes it), without sleeping.
    let dueAt: Date | null = null;
    while (this.running && this.inFlight.size + this.reserved < this.o.concurrency) {
      const free = this.o.concurrency - this.inFlight.size - this.reserved;
      const { claims, nextDueAt } = await claimBatch(this.o.db, this.o.clock(), this.o.leaseMs, free, this.turns.recent());
      dueAt = nextDueAt;
      for (const claim of claims) {
        if (!this.running) {
          await unlease(this.o.db, claim.item);
          continue;
        }
        this.spawn(claim);
      }
      // Fewer than asked: nothing more was due.
      this.caughtUp = claims.length < free;
      if (claims.length < free) break;
    }
    // Slots free but promised to an offer in progress: look again when it ends.
    if (this.inFlight.size < this.o.concurrency && this.inFlight.size + this.reserved >= this.o.concurrency) this.waitingForOffers = true;
    if (!this.running || this.pending) return;
    let wait = this.o.pollMs;
    if (this.inFlight.size + this.reserved < this.o.concurrency) {
      const untilDue = dueAt ? dueAt.getTime() - this.o.clock().getTime() : Infinity;
      if (untilDue > 0) wait = Math.min(wait, untilDue);
    }
    wait = Math.min(wait, Math.max(0, this.nextCronCheck - this.o.clock().getTime()));
    await this.idle(wait);
  }

  /** A worker is done: its slot is free, and the loop looks for work unless the worker's last settle saw none due. */
  private finished(task: Promise<void>, quiet: boolean) {
    this.inFlight.delete(task);
    if (!quiet) this.poke();
    // Quiet: the worker's last settle looked at the queue and saw nothing due.
    else this.caughtUp = true;
  }

  private idle(ms: number): Promise<void> {
    if (this.pending || !this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }

  /**
   * Makes the item's call, then the run's following calls for as long as settling hands them back,
   * then the items its settles claimed for this worker: with work queued, a worker goes from run to
   * run without a claim statement of its own.
   */
  private async process(worker: Worker, firstState: CallState | null): Promise<boolean> {
    let state: CallState | null = firstState;
    for (;;) {
      const item = worker.item;
      try {
        if (item.kind === "wake") {
          await settleWake(this.o.db, item, this.o.clock());
          return false;
        }
        const settled: Settled | null = await this.callOnce(item, state);
        const claimed = settled?.claimed?.[0] ?? null;
        const next = settled?.next ?? claimed?.item ?? null;
        // Quiet: the run ended and nothing else was due; the loop need not look (sends poke it).
        if (!next) return settled?.nothingDue === true;
        if (!this.running) {
          await unlease(this.o.db, next);
          return false;
        }
        // A settle that found another due item: there may be a backlog.
        if (claimed) {
          this.caughtUp = false;
          this.turns.record(claimed.fairKey ?? null);
        }
        worker.item = next;
        // The settle reported the run as it now is, or loaded the claimed run: the next call goes out without reloading it.
        state = settled?.next ? (state && settled.state ? { run: { ...state.run, ...settled.state.run }, event: state.event, steps: settled.state.memoized } : null) : (claimed?.state ?? null);
      } catch (err) {
        // The item keeps its lease until it runs out, then runs again.
        this.o.log.error(`run ${item.runId}: ${(err as Error).message}`, { err, run_id: item.runId });
        return false;
      }
    }
  }

  private async callOnce(item: ClaimedItem, known: CallState | null): Promise<Settled | null> {
    const { db, clock } = this.o;
    const state = known ?? (await loadCallState(db, item));
    if (!state || state.run.status === "completed" || state.run.status === "failed") {
      await dropItem(db, item);
      return null;
    }
    const startedAt = clock();
    // Measured on the monotonic clock: the application clock may be moved (the test clock) mid-call.
    const t0 = performance.now();
    const fn = await this.functions.get(state.run.functionId);
    if (!fn) {
      const error = { name: "FunctionNotFound", message: `Function ${state.run.functionId} is no longer served` };
      return this.settle(item, state, { kind: "error", retriable: false, error }, 1, { status: 0, startedAt, durationMs: 0, requestVersion: null });
    }
    // A run claimed by claimBatch is marked started by the claim; one reloaded here may not be.
    if (!known && state.run.status === "queued") await markRunStarted(db, item.runId, startedAt);
    const answer = await this.call(item, state, fn);
    const outcome = interpretAnswer(answer, Date.now());
    const version = Number(answer.headers["x-inngest-req-version"]);
    return this.settle(item, state, outcome, fn.maxAttempts, {
      status: answer.status,
      startedAt,
      durationMs: Math.round(performance.now() - t0),
      requestVersion: Number.isInteger(version) ? version : null,
    });
  }

  private async settle(item: ClaimedItem, state: CallState, outcome: Outcome, maxAttempts: number, call: SettleInput["call"]): Promise<Settled> {
    const functionId = state.run.functionId;
    const sequential = !state.run.disableImmediateExecution;
    const settled = await settleCall(this.o.db, { item, outcome, maxAttempts, now: this.o.clock(), backoffMs: this.o.backoffMs, leaseMs: this.o.leaseMs, call, sequential, claimNext: this.running });
    // The settle that ended the run says so once: a lost lease or an ended run is labelled otherwise.
    if (settled.label === "completed" || settled.label === "failed") countJobRun(functionId, settled.label);
    // New work for other workers (planned steps, a failure handler's run, a sleep's or a retry's
    // timer to wait for) only appears when this one does not go on, and never when the run has
    // simply completed (its items are gone): the worker's own end tells the loop whether to look.
    if (!settled.next && settled.label !== "completed") notifyWork();
    return settled;
  }

  private async call(item: ClaimedItem, state: CallState, fn: JobFunction): Promise<CallAnswer> {
    const payload = callBody({
      runId: state.run.id,
      event: state.event,
      steps: state.steps,
      attempt: item.attempt,
      maxAttempts: fn.maxAttempts,
      disableImmediateExecution: state.run.disableImmediateExecution,
      requestVersion: state.run.requestVersion,
      // The SDK checkpoints a discovery call's steps to the event origin's checkpoint API
      // (event-api.ts), which memoizes them while this worker holds the item's lease.
      checkpoint: { fnId: state.run.functionId, queueItemId: checkpointItemId(item) },
    });
    const { body, signature } = signedBody(payload, this.o.signingKey);
    const renew = setInterval(() => {
      renewLease(this.o.db, item, this.o.leaseMs)
        .then((held) => held || this.o.log.warn(`run ${item.runId}: lease lost during a call; its result will be dropped`, { run_id: item.runId }))
        .catch((err) => this.o.log.warn(`lease renewal failed: ${(err as Error).message}`, { err, run_id: item.runId }));
    }, Math.max(250, Math.floor(this.o.leaseMs / 3)));
    try {
      return await this.o.transport({
        method: "POST",
        url: withStepId(fn.url, item.stepId),
        headers: { "content-type": "application/json", "x-inngest-signature": signature },
        body,
      });
    } catch (err) {
      return { status: 0, headers: {}, body: (err as Error).message };
    } finally {
      clearInterval(renew);
    }
  }
}
