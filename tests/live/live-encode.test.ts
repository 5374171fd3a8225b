import { beforeAll, expect, it } from "vitest";
import { newApiToken, newBoard, newWorkspace } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { makeClip, useVideoJobs, type VideoDeps } from "../video/helpers";
import { isChange, openStream, sessionHeaders } from "./helpers";

// The jobs run for real here (the embedded executor, in-process): what a page hears while a video
// it shows is processed and encoded.
let deps: VideoDeps;
beforeAll(async () => {
  deps = await useVideoJobs();
});

it("an upload's thumbnails and its encode, queued, started and published, each reach the stream", { timeout: 120_000 }, async () => {
  const ws = await newWorkspace(deps.db, { plan: "team" });
  const token = await newApiToken(deps.db, ws);
  const board = await newBoard(deps.db, ws);
  const stream = await openStream(ws.slug, await sessionHeaders(deps.db));
  try {
    await stream.next((e) => e.event === "ready");
    const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ seconds: 2 }), { media_type: "video/mp4", collection_token: board.token });
    await stream.next(isChange(asset.token, "asset_added"), 10_000);
    await stream.next(isChange(asset.token, "asset_processed"), 60_000);
    await stream.next(isChange(asset.token, "encode_queued"), 60_000);
    await stream.next(isChange(asset.token, "encode_started"), 60_000);
    const published = await stream.next((e) => isChange(asset.token, "asset_updated")(e) && ((e.data as { changed?: string[] }).changed ?? []).includes("stream_url"), 90_000);
    expect(published.data).toMatchObject({ boards: [board.token] });
  } finally {
    stream.close();
  }
});
