import { afterEach, beforeAll, describe, expect, it } from "vitest";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import * as triggerRoute from "../../app/v1/trigger/route";
import type { Board, Workspace } from "../../lib/db/schema";
import { setDeps } from "../../lib/deps";
import { backlog, defaultRetryDelayMs, OutboxRelay, setRetryDelay } from "../../lib/jobs/outbox";
import { embeddedJobSender, inngestJobSender, type JobSender } from "../../lib/jobs/send";
import { call } from "../helpers/call-route";
import { insertAsset, newApiToken, newBoard, newWorkspace } from "../helpers/factories";
import { sleep, startReceiver, useWebhookJobs, waitFor } from "../webhooks/helpers";

/**
 * Contract §10, durability: every write's event is stored in the write's transaction and handed
 * on when the job system can take it (lib/jobs/outbox). The webhook functions run for real on the
 * embedded executor and a receiver on loopback counts what reaches it; only the job sender in the
 * deps is replaced, by one that fails its next N calls as an unreachable job system would.
 */
let deps: Awaited<ReturnType<typeof useWebhookJobs>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let relay: OutboxRelay | null = null;

beforeAll(async () => {
  deps = await useWebhookJobs();
  receiver = await startReceiver();
});

afterEach(async () => {
  await relay?.stop();
  relay = null;
  setRetryDelay(defaultRetryDelayMs);
});

const INJECTED = "connect ECONNREFUSED 127.0.0.1:8288 (injected)";

/** `inner`, except that its next `n` calls fail before reaching it. */
function failingFor(inner: JobSender, n: number) {
  const state = { left: n, failed: 0, calls: 0 };
  const gate = () => {
    state.calls++;
    if (state.left > 0) {
      state.left--;
      state.failed++;
      throw new Error(INJECTED);
    }
  };
  const sender: JobSender = {
    async send(event, data, options) {
      gate();
      await inner.send(event, data, options);
    },
  };
  if (inner.storeInTransaction) {
    const store = inner.storeInTransaction.bind(inner);
    sender.storeInTransaction = async (tx, events, now) => {
      gate();
      await store(tx, events, now);
    };
  }
  return { sender, state };
}

/** A workspace with a board, assets on it, and an asset_updated trigger whose receiver path is its own. */
async function watchedAssets(count: number) {
  const ws: Workspace = await newWorkspace(deps.db);
  const board: Board = await newBoard(deps.db, ws);
  const token = await newApiToken(deps.db, ws, { webhooks: true });
  const path = `/hook-${ws.slug}`;
  const hook = await call(triggerRoute.POST, { method: "POST", path: "/v1/trigger", token, json: { hook: "asset_updated", hook_url: receiver.url(path), organization_slug: ws.slug, collection_token: board.token } });
  expect(hook.status, hook.text).toBe(201);
  const assets = [];
  for (let i = 0; i < count; i++) assets.push(await insertAsset(deps.db, ws, { title: `asset ${i}`, boardIds: [board.id] }));
  const patchTitle = (asset: { token: string }, title: string) =>
    call(assetRoute.PATCH, { method: "PATCH", path: `/v1/${ws.slug}/assets/${asset.token}`, token, json: { asset: { title } }, params: { slug: ws.slug, token: asset.token } });
  return { assets, path, patchTitle };
}

// The title each event set (a payload's `asset.title` is the asset as the fan-out read it, later writes included).
const titlesAt = (path: string) => receiver.at(path).map((r) => JSON.parse(r.body).asset.changes.title.new as string);

describe.each([
  { how: "the embedded executor's store, hand-off and deletion in one transaction", inner: () => embeddedJobSender() },
  { how: "sent through the Inngest client with the row id as the event id", inner: () => inngestJobSender() },
])("job sender failing for its next 60 calls: $how", ({ inner }) => {
  it("50 writes succeed meanwhile; once it recovers exactly 50 events reach the webhook functions", { timeout: 120_000 }, async () => {
    const { assets, path, patchTitle } = await watchedAssets(5);
    const faulty = failingFor(inner(), 60);
    setDeps({ db: deps.db, clock: deps.clock, storage: deps.storage, jobs: faulty.sender });
    relay = new OutboxRelay({ deps: async () => ({ db: deps.db, clock: deps.clock, jobs: faulty.sender }), pollMs: 100, retryDelayMs: () => 50 });

    const titles: string[] = [];
    for (let i = 0; i < 50; i++) {
      const title = `title ${i}`;
      const res = await patchTitle(assets[i % assets.length], title);
      expect(res.status, res.text).toBe(200);
      titles.push(title);
    }
    // Every hand-off tried so far failed; every event waits in the outbox, none was lost.
    expect(faulty.state.calls).toBeGreaterThan(0);
    expect(faulty.state.failed).toBe(faulty.state.calls);
    expect((await backlog(deps.db)).rows).toBe(50);
    await sleep(500);
    expect(receiver.at(path)).toHaveLength(0);

    // The relay retries with backoff until the sender works again, then hands everything on.
    const started = Date.now();
    relay.start();
    await waitFor(() => receiver.at(path).length >= 50, 60_000, "50 deliveries");
    const deliveredMs = Date.now() - started;
    await sleep(2000);
    expect(titlesAt(path).sort()).toEqual([...titles].sort());
    expect(new Set(receiver.at(path).map((r) => r.headers["webhook-id"])).size).toBe(50);
    expect(faulty.state.left).toBe(0);
    expect((await backlog(deps.db)).rows).toBe(0);
    console.log(`[outbox] 50 writes while the job sender failed (${faulty.state.failed} failed calls); all 50 delivered ${deliveredMs} ms after the relay started, none twice`);
  });
});

it("a send the job system took but whose answer was lost is sent again with the same id, and starts one run", { timeout: 60_000 }, async () => {
  const { assets, path, patchTitle } = await watchedAssets(1);
  const real = inngestJobSender();
  const ids: string[] = [];
  const lossy: JobSender = {
    async send(event, data, options) {
      ids.push(options!.id!);
      await real.send(event, data, options);
      if (ids.length === 1) throw new Error("socket hang up after the event was stored (injected)");
    },
  };
  setDeps({ db: deps.db, clock: deps.clock, storage: deps.storage, jobs: lossy });
  relay = new OutboxRelay({ deps: async () => ({ db: deps.db, clock: deps.clock, jobs: lossy }), pollMs: 100, retryDelayMs: () => 50 });
  relay.start();
  expect((await patchTitle(assets[0], "sent twice, delivered once")).status).toBe(200);
  await waitFor(async () => ids.length >= 2 && (await backlog(deps.db)).rows === 0, 20_000, "the resend");
  await waitFor(() => receiver.at(path).length >= 1, 20_000, "the delivery");
  await sleep(2000);
  expect(ids).toHaveLength(2);
  expect(ids[0]).toBe(ids[1]);
  expect(titlesAt(path)).toEqual(["sent twice, delivered once"]);
});
