import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../lib/db";
import { triggers } from "../../lib/db/schema";
import type { Deps } from "../../lib/deps";
import { renderMetrics } from "../../lib/metrics/registry.mjs";
import { attemptDelivery } from "../../lib/webhooks/deliver";
import { newSigningSecret } from "../../lib/webhooks/sign";
import { newBoard, newWorkspace } from "../helpers/factories";
import { testClient } from "../jobs/fixtures/client";
import { finishedRuns, jobsDb, startExecutor } from "../jobs/helpers";
import { startReceiver } from "../webhooks/helpers";
import { sample } from "./helpers";

/**
 * The counters recorded where the work happens: job runs as the embedded executor settles them
 * (the fixture functions of tests/jobs), webhook delivery attempts as they are logged (one attempt
 * at a time against a receiver on 127.0.0.1).
 */
let db: Db;
const text = async () => (await renderMetrics()).body;

beforeAll(async () => {
  ({ db } = await jobsDb());
  await startExecutor(db);
});

describe("job runs", () => {
  it("counts each run once when it ends, by function id and outcome", async () => {
    const completed = 'easel_job_runs_total{function="jobs-test-three-steps",outcome="completed"}';
    const failed = 'easel_job_runs_total{function="jobs-test-always-fails",outcome="failed"}';
    const handled = 'easel_job_runs_total{function="jobs-test-always-fails-failure",outcome="completed"}';
    const before = await text();
    await testClient.send({ name: "test/three", data: {} });
    await testClient.send({ name: "test/fail", data: {} });
    await finishedRuns(db, "jobs-test-three-steps");
    await finishedRuns(db, "jobs-test-always-fails");
    await finishedRuns(db, "jobs-test-always-fails-failure");
    const after = await text();
    // three-steps retried a step on its way (a call, not a run): still one completed run.
    expect(sample(after, completed) - sample(before, completed)).toBe(1);
    expect(sample(after, failed) - sample(before, failed)).toBe(1);
    expect(sample(after, handled) - sample(before, handled)).toBe(1);
    expect(after).not.toMatch(/easel_job_runs_total\{[^}]*outcome="(retry|step|lease-lost|run-ended)"/);
  });
});

describe("webhook deliveries", () => {
  it("counts every attempt by outcome: delivered, failed, gone, and skipped when the trigger is no longer live", async () => {
    const receiver = await startReceiver();
    const deps = { db, clock: () => new Date() } as Deps;
    const ws = await newWorkspace(db);
    const board = await newBoard(db, ws);
    const policy = { protocols: ["http:"], allowPrivate: true };
    const hookTo = async (path: string) => {
      const id = `trg_${crypto.randomBytes(8).toString("hex")}`;
      await db.insert(triggers).values({ id, workspaceId: ws.id, boardId: board.id, hook: "asset_added", hookUrl: receiver.url(path), secret: newSigningSecret(), createdAt: new Date(), expirationDate: new Date(Date.now() + 86_400_000) });
      return id;
    };
    const attempt = async (triggerId: string) => (await attemptDelivery(deps, { triggerId, messageId: `msg_${crypto.randomUUID()}`, payload: { type: "asset_added" } }, { policy })).outcome;
    const outcomes = ["delivered", "failed", "gone", "skipped"] as const;
    const series = (o: string) => `easel_webhook_deliveries_total{outcome="${o}"}`;
    const before = await text();

    receiver.script("/fails", [500]);
    receiver.script("/gone", [410]);
    const ok = await hookTo("/ok");
    expect(await attempt(ok)).toBe("delivered");
    expect(await attempt(ok)).toBe("delivered");
    expect(await attempt(await hookTo("/fails"))).toBe("failed");
    const gone = await hookTo("/gone");
    expect(await attempt(gone)).toBe("gone");
    expect(await attempt(gone)).toBe("skipped"); // 410 disabled the trigger: nothing is sent
    await db.update(triggers).set({ deletedAt: new Date() }).where(eq(triggers.id, ok));
    expect(await attempt(ok)).toBe("skipped");

    const after = await text();
    const delta = Object.fromEntries(outcomes.map((o) => [o, sample(after, series(o)) - sample(before, series(o))]));
    expect(delta).toEqual({ delivered: 2, failed: 1, gone: 1, skipped: 2 });
    expect(receiver.received).toHaveLength(4);
  });
});
