import { afterEach, beforeAll, expect, it, vi } from "vitest";
import type { Workspace } from "../../lib/db/schema";
import { resetEnvCache } from "../../lib/env";
import { captureLogs } from "../../lib/log/capture";
import { newApiToken, newWorkspace } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { makeClip, retryEncode, useVideoJobs, waitForAsset } from "./helpers";

/**
 * An encode over its time limit (docs/video.md, "Time and memory limits of an encode"): the
 * ladder's ffmpeg is killed at EASEL_MEDIA_TIMEOUT_S per minute of source for each rung, the encode fails
 * at once (no retry of the step: the same bytes would go over the limit again), and the asset
 * records processing_error time_limit beside encode_error.
 */
let deps: Awaited<ReturnType<typeof useVideoJobs>>;
let ws: Workspace;
let token: string;

beforeAll(async () => {
  deps = await useVideoJobs();
  // A plan that does not encode on upload: the encode starts when the test asks, under the test's limit.
  ws = await newWorkspace(deps.db, { plan: "free" });
  token = await newApiToken(deps.db, ws);
});

afterEach(() => {
  vi.unstubAllEnvs();
  resetEnvCache();
});

it("a one-minute noisy clip under a 1 s-per-minute limit: encode failed, processing_error time_limit, one attempt", { timeout: 180_000 }, async () => {
  const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ size: "640x360", seconds: 60, noisy: true }), { media_type: "video/mp4" });
  const processed = await waitForAsset(deps.db, asset.id, (a) => a.thumbnails.length === 3, "processing under the default limits", 120_000);
  expect(processed.processingError).toBeNull();

  vi.stubEnv("EASEL_MEDIA_TIMEOUT_S", "1");
  resetEnvCache();
  const logs = captureLogs();
  try {
    expect((await retryEncode(ws, token, asset.token)).status).toBe(200);
    const failed = await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "failed" || a.encodeStatus === "ready", "the encode to end", 120_000);
    expect([failed.encodeStatus, failed.encodeError]).toEqual(["failed", "encode_failed"]);
    expect(failed.processingError).toEqual({ code: "time_limit", message: "ffmpeg ran longer than its time limit of 2 s and was stopped" });
    // One attempt of the ladder (240p and 360p in one pass), under 1 s per minute of source for each rung.
    const attempts = logs.lines().filter((l) => l.msg === "ladder encode started" && l.asset_id === asset.id);
    expect(attempts.map((l) => [l.rungs, l.time_limit_s])).toEqual([[["240p", "360p"], 2]]);
  } finally {
    logs.restore();
  }
});
