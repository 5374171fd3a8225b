import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { assets, type Workspace } from "../../lib/db/schema";
import { jobRuns } from "../../lib/db/schema/jobs";
import { leaseKey } from "../../lib/encode/keys";
import { LEASE_MS } from "../../lib/encode/lease";
import { getRun } from "../../lib/jobs/runs";
import { newApiToken, newWorkspace } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { makeClip, retryEncode, useVideoJobs, waitFor, waitForAsset, type VideoDeps } from "./helpers";

let deps: VideoDeps;
let ws: Workspace;
let token: string;
beforeAll(async () => {
  deps = await useVideoJobs();
  ws = await newWorkspace(deps.db, { plan: "team" });
  token = await newApiToken(deps.db, ws);
});

/** The encode runs of an asset once all have ended, with their memoized step names. Moves the clock so waiting runs wake. */
async function endedEncodeRuns(assetId: number, count: number) {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const runs = (await deps.db.select().from(jobRuns)).filter((r) => r.functionId.endsWith("encode-video"));
    const mine = [];
    for (const r of runs) {
      const full = await getRun(deps.db, r.id);
      if ((full?.event as { data?: { assetId?: number } } | null)?.data?.assetId === assetId) mine.push(full!);
    }
    if (mine.length >= count && mine.every((r) => r.status === "completed" || r.status === "failed")) return mine.sort((a, b) => a.created_at.localeCompare(b.created_at));
    if (Date.now() > deadline) throw new Error(`runs did not end: ${JSON.stringify(mine.map((r) => [r.status, r.steps.map((s) => s.name)]))}`);
    // A run waiting for the lease sleeps 15 s and more: the executor follows the app clock.
    deps.time.advance(20_000);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("retry_video_processing against running and dead encodes", () => {
  it("a call while the encode runs queues a second job that waits for it, finds the work done and encodes nothing", { timeout: 150_000 }, async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ size: "640x360", seconds: 8, noisy: true }), { media_type: "video/mp4" });
    await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "processing", "the encode to start", 60_000);
    const res = await retryEncode(ws, token, asset.token);
    expect([res.status, res.body.data.encode_status]).toEqual([200, "processing"]);
    await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready", "the encode", 90_000);
    const [first, second] = await endedEncodeRuns(asset.id, 2).finally(() => deps.time.reset());
    expect(first.status).toBe("completed");
    expect(first.output).toMatchObject({ status: "published" });
    expect(first.steps.map((s) => s.name)).toEqual(["claim", "probe", "ladder", "storyboard", "publish"]);
    expect(second.status).toBe("completed");
    expect(second.output).toEqual({ kind: "done", reason: "already_encoded" });
    expect(second.steps.map((s) => s.name ?? "").filter((n) => /^(probe|rendition|publish)/.test(n))).toEqual([]);
  });

  it("takes over an encode that died: status left at processing, its lease run out", { timeout: 120_000 }, async () => {
    const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ seconds: 2 }), { media_type: "video/mp4" });
    await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready", "the first encode");
    // Simulate a run that died mid-encode long ago: nothing published, a stale lease of another run.
    const row = (await deps.db.update(assets).set({ encodeStatus: "processing", streamKey: null }).where(eq(assets.id, asset.id)).returning())[0];
    const stale = { runId: "DEADRUN", until: deps.clock().getTime() - LEASE_MS };
    await deps.store.s3.put(leaseKey(row.storageKey), Buffer.from(JSON.stringify(stale)), "application/json");
    const res = await retryEncode(ws, token, asset.token);
    expect([res.status, res.body.data.encode_status]).toEqual([200, "processing"]);
    const done = await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready" && a.streamKey !== null, "the take-over");
    expect(done.encodeError).toBeNull();
    // The publish step gives the lease up right after it sets the stream.
    expect(await waitFor(() => deps.store.s3.has(leaseKey(row.storageKey)), (held) => !held)).toBe(false);
  });
});
