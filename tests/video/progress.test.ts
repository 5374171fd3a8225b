import { beforeAll, expect, it } from "vitest";
import type { EncodeProgress } from "../../lib/db/schema";
import { newApiToken, newWorkspace } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { isChange, openStream, sessionHeaders, type SseEvent } from "../live/helpers";
import { assetRow, getAsset, makeClip, useVideoJobs, type VideoDeps } from "./helpers";

let deps: VideoDeps;
beforeAll(async () => {
  deps = await useVideoJobs();
});

type LiveProgress = { fraction: number; rung: string; eta_seconds: number | null };

it("a real encode stores rising progress, pushes it to the live stream, and clears it when published", { timeout: 120_000 }, async () => {
  const ws = await newWorkspace(deps.db, { plan: "team" });
  const token = await newApiToken(deps.db, ws);
  const stream = await openStream(ws.slug, await sessionHeaders(deps.db));
  try {
    await stream.next((e) => e.event === "ready");
    // Long and noisy enough for several seconds of encoding even on an idle machine (a 12 s clip
    // took 3 s there: too few reports for an estimate, and a store the sampler could miss).
    const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ size: "640x360", seconds: 30, noisy: true }), { media_type: "video/mp4" });

    // The row as it moves, sampled while the live stream is read.
    const stored: EncodeProgress[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const row = await assetRow(deps.db, asset.id);
        if (row.encodeProgress && row.encodeStatus === "processing") stored.push(row.encodeProgress);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();

    const pushed: LiveProgress[] = [];
    let published: SseEvent | null = null;
    while (!published) {
      const e = await stream.next((x) => isChange(asset.token, "encode_progress")(x) || isChange(asset.token, "asset_updated")(x), 90_000);
      const data = e.data as { kind: string; progress?: LiveProgress; changed?: string[] };
      if (data.kind === "encode_progress") pushed.push(data.progress!);
      else if (data.changed?.includes("stream_url")) published = e;
    }
    sampling = false;
    await sampler;

    // Pushed: more than one report, each further than the one before, within 0–1, naming a rung of the ladder.
    expect(pushed.length).toBeGreaterThan(1);
    for (let i = 1; i < pushed.length; i++) expect(pushed[i].fraction).toBeGreaterThan(pushed[i - 1].fraction);
    for (const p of pushed) {
      expect(p.fraction).toBeGreaterThanOrEqual(0);
      expect(p.fraction).toBeLessThan(1);
      expect(["240p", "360p"]).toContain(p.rung);
    }
    // The last reports came with an estimate of the time left.
    expect(pushed.at(-1)!.eta_seconds).not.toBeNull();
    // Stored: never backwards.
    expect(stored.length).toBeGreaterThan(0);
    for (let i = 1; i < stored.length; i++) expect(stored[i].fraction).toBeGreaterThanOrEqual(stored[i - 1].fraction);

    // Published: the column is cleared and the asset JSON says null.
    const row = await assetRow(deps.db, asset.id);
    expect(row.encodeStatus).toBe("ready");
    expect(row.encodeProgress).toBeNull();
    const read = await getAsset(ws, token, asset.token);
    expect(read.body.data).toMatchObject({ encode_status: "ready", encode_progress: null });
  } finally {
    stream.close();
  }
});
