import { beforeAll, expect, it } from "vitest";
import type { Db } from "../../lib/db";
import { assetProcessingRequested } from "../../lib/jobs/events";
import { handOff, stageEvent } from "../../lib/jobs/outbox";
import { embeddedJobSender } from "../../lib/jobs/send";
import { testClient } from "./fixtures/client";
import { finishedRuns, jobsDb, startExecutor } from "./helpers";

/**
 * A send to a database whose executor runs in this process, with free slots and nothing else
 * due, stores the new run's first call already leased to that executor (local-slots.ts): the run
 * starts without a claim statement. A run in a concurrency group is never leased that way (its
 * group is counted by a claim). The outbox's hand-off does the same inside its transaction.
 */

const plain = testClient.createFunction({ id: "lease-plain", retries: 0, triggers: [{ event: "lease/plain" }] }, async ({ event, step }) => step.run("one", () => event.data.n));
const grouped = testClient.createFunction(
  { id: "lease-grouped", retries: 0, concurrency: [{ key: "event.data.n", limit: 1 }], triggers: [{ event: "lease/grouped" }] },
  async ({ event, step }) => step.run("one", () => event.data.n),
);
const fromOutbox = testClient.createFunction({ id: "lease-outbox", retries: 0, triggers: [{ event: assetProcessingRequested.name }] }, async ({ event, step }) =>
  step.run("one", () => event.data.assetId as number),
);

let db: Db;
beforeAll(async () => {
  ({ db } = await jobsDb());
  // No polling: every claim statement seen is one a run needed.
  await startExecutor(db, { functions: [plain, grouped, fromOutbox], pollMs: 60_000 });
});

/** Leased by its insert: started at the moment it was created (a claim starts it later). */
const leasedByInsert = (r: { startedAt: Date | null; createdAt: Date }) => r.startedAt?.getTime() === r.createdAt.getTime();

type Session = { logger?: { logQuery: (text: string, params: unknown[]) => void } };

/** Statements issued on `db` while `body` runs, by their first words. */
async function statementsDuring(body: () => Promise<void>): Promise<string[]> {
  const session = (db as unknown as { session: Session }).session;
  const before = session.logger;
  const seen: string[] = [];
  session.logger = { logQuery: (text, params) => (seen.push(text.replace(/\s+/g, " ").trim()), before?.logQuery(text, params)) };
  try {
    await body();
  } finally {
    session.logger = before;
  }
  return seen;
}

const isClaim = (text: string) => /^with (db_now|head) as/.test(text);

it("starts a run sent to a caught-up executor without a claim: its insert leases the first call", async () => {  // The first run catches the executor up (its loop's claim finds nothing more due).
  await testClient.send({ name: "lease/plain", data: { n: 0 } });
  await finishedRuns(db, "jobs-test-lease-plain", 1);

  const plainStatements = await statementsDuring(async () => {
    for (let n = 1; n <= 5; n++) {
      await testClient.send({ name: "lease/plain", data: { n } });
      await finishedRuns(db, "jobs-test-lease-plain", n + 1);
    }
  });
  const runs = await finishedRuns(db, "jobs-test-lease-plain", 6);
  expect(runs.map((r) => [r.status, r.output]).sort()).toEqual([0, 1, 2, 3, 4, 5].map((n) => ["completed", n]).sort());
  expect(runs.filter(leasedByInsert).length).toBeGreaterThanOrEqual(5);
  expect(plainStatements.filter(isClaim)).toEqual([]);

  const groupedStatements = await statementsDuring(async () => {
    await testClient.send({ name: "lease/grouped", data: { n: 7 } });
    await finishedRuns(db, "jobs-test-lease-grouped", 1);
  });
  expect((await finishedRuns(db, "jobs-test-lease-grouped", 1)).map((r) => [r.status, r.output])).toEqual([["completed", 7]]);
  expect(groupedStatements.filter(isClaim).length).toBeGreaterThan(0);
});

it("hands an outbox row's run to the executor inside the hand-off's transaction, without a claim", async () => {
  const deps = { db, clock: () => new Date(), jobs: embeddedJobSender() };
  const statements = await statementsDuring(async () => {
    for (let n = 1; n <= 3; n++) {
      const id = await stageEvent(db, assetProcessingRequested, { assetId: 500 + n });
      await handOff(deps, [id]);
      await finishedRuns(db, "jobs-test-lease-outbox", n);
    }
  });
  const runs = await finishedRuns(db, "jobs-test-lease-outbox", 3);
  expect(runs.map((r) => [r.status, r.output]).sort()).toEqual([501, 502, 503].map((n) => ["completed", n]).sort());
  expect(runs.filter(leasedByInsert)).toHaveLength(3);
  expect(statements.filter(isClaim)).toEqual([]);
});
