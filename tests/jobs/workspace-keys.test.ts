import { eq } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { stageProcessing } from "../../lib/assets/events";
import { assets, type Workspace } from "../../lib/db/schema";
import { queueEncode } from "../../lib/encode/status";
import { assetProcessingRequested, encodeVideoRequested } from "../../lib/jobs/events";
import { functions } from "../../lib/jobs/functions";
import { transactionWithEvents } from "../../lib/jobs/outbox";
import { useTestDeps } from "../helpers/deps";
import { insertAsset, newWorkspace } from "../helpers/factories";

/**
 * Fair queues rest on two things outside the executor: the functions that work for a workspace
 * declare a per-workspace limit below their own, and every event they take carries the workspace.
 */

let deps: Awaited<ReturnType<typeof useTestDeps>>;
let ws: Workspace;
beforeAll(async () => {
  deps = await useTestDeps();
  ws = await newWorkspace(deps.db, { plan: "free" });
});

it("limits processing, encodes, fan-outs and deliveries per workspace, below each function's own limit", () => {
  const byId = new Map(functions.map((fn) => [fn.opts.id, fn.opts.concurrency]));
  for (const id of ["asset-process", "encode-video", "webhooks-fan-out", "webhooks-deliver"]) {
    const rules = [byId.get(id)].flat() as { limit: number; key?: string }[];
    const perWorkspace = rules.find((r) => r.key === "event.data.workspaceId");
    const whole = rules.find((r) => !r.key);
    expect(perWorkspace, `${id}: a rule keyed by workspace`).toBeDefined();
    expect(whole, `${id}: a limit for the function`).toBeDefined();
    expect(perWorkspace!.limit, `${id}: one workspace never holds every slot`).toBeLessThan(whole!.limit);
  }
});

it("sends the workspace with every processing and encode request", async () => {
  const asset = await insertAsset(deps.db, ws, { mediaType: "video/mp4", media: {} });
  await transactionWithEvents(deps, async (_tx, stage) => stageProcessing(stage, asset));
  await deps.db.update(assets).set({ encodeStatus: "none" }).where(eq(assets.id, asset.id));
  await queueEncode(deps, asset, ["none"], { always: true });
  expect(deps.jobs.dataOf(assetProcessingRequested).filter((e) => e.assetId === asset.id)).toEqual([{ assetId: asset.id, workspaceId: ws.id }]);
  expect(deps.jobs.dataOf(encodeVideoRequested).filter((e) => e.assetId === asset.id)).toEqual([{ assetId: asset.id, workspaceId: ws.id }]);
});
