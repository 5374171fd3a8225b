import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, expect, it } from "vitest";
import { binaries } from "../../lib/media/ffmpeg";
import { processAsset } from "../../lib/media/process-asset";
import { useTestDeps } from "../helpers/deps";
import { newApiToken, newWorkspace } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { assetRow, getAsset } from "./helpers";

let deps: Awaited<ReturnType<typeof useTestDeps>>;
beforeAll(async () => {
  deps = await useTestDeps();
});

/** A clip of lavfi's `filter` (H.264, 160x90), uploaded and processed; its asset row and API read. */
async function processedClip(filter: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-poster-"));
  const file = path.join(dir, "clip.mp4");
  execFileSync(binaries().ffmpeg, ["-nostdin", "-v", "error", "-f", "lavfi", "-i", filter, "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", file]);
  const ws = await newWorkspace(deps.db, { plan: "free" });
  const token = await newApiToken(deps.db, ws);
  const { asset } = await uploadAsset(ws, token, deps.store.s3, fs.readFileSync(file), { media_type: "video/mp4" });
  fs.rmSync(dir, { recursive: true, force: true });
  expect(await processAsset(deps, deps.store.s3, asset.id)).toMatchObject({ status: "processed", isVideo: true });
  return { row: await assetRow(deps.db, asset.id), read: await getAsset(ws, token, asset.token), asset };
}

it("the poster (display_url) is the middle of the first segment when it is not black", { timeout: 60_000 }, async () => {
  // 20 s of blue, red only between 1.5 s and 2.5 s: the frame at 2 s (the middle of the first 4 s segment) is red.
  const { row, read, asset } = await processedClip("color=c=blue:s=160x90:r=10:d=20,drawbox=c=red:t=fill:enable='between(t,1.5,2.5)'");
  expect(row.media.colors?.[0]).toBe("red");
  // display_url serves the large thumbnail, rendered from that frame.
  expect(read.body.data.display_url).toMatch(new RegExp(`/media/${asset.token}/display\\?exp=`));
  expect(row.thumbnails.find((t) => t.size === "large")).toMatchObject({ width: 160, height: 90 });
});

it("a video that opens on black gets its poster from the middle of the first segment that is not", { timeout: 60_000 }, async () => {
  // Black for 9 s (segments 0 and 1, and the middle of segment 2 at 10 s is green), then green
  // until 12 s, then red: the poster is the frame at 10 s, green; neither black nor red.
  const { row } = await processedClip("color=c=black:s=160x90:r=10:d=20,drawbox=c=green:t=fill:enable='between(t,9,12)',drawbox=c=red:t=fill:enable='gt(t,12)'");
  expect(row.media.colors?.[0]).toBe("green");
  expect(row.thumbnails.length).toBeGreaterThan(0);
});

it("a video black from start to end still gets a poster", { timeout: 60_000 }, async () => {
  const { row } = await processedClip("color=c=black:s=160x90:r=10:d=6");
  expect(row.thumbnails.find((t) => t.size === "large")).toMatchObject({ width: 160, height: 90 });
});
