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

it("the poster (display_url) is the frame at 10 % of the duration", { timeout: 60_000 }, async () => {
  // 20 s of blue, red only between 1.5 s and 2.5 s: the frame at 2 s (10 %) is red.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-poster-"));
  const file = path.join(dir, "clip.mp4");
  execFileSync(binaries().ffmpeg, ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=c=blue:s=160x90:r=10:d=20,drawbox=c=red:t=fill:enable='between(t,1.5,2.5)'", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", file]);
  const ws = await newWorkspace(deps.db, { plan: "free" });
  const token = await newApiToken(deps.db, ws);
  const { asset } = await uploadAsset(ws, token, deps.store.s3, fs.readFileSync(file), { media_type: "video/mp4" });
  fs.rmSync(dir, { recursive: true, force: true });
  expect(await processAsset(deps, deps.store.s3, asset.id)).toMatchObject({ status: "processed", isVideo: true });
  const row = await assetRow(deps.db, asset.id);
  expect(row.media.colors?.[0]).toBe("red");
  const read = await getAsset(ws, token, asset.token);
  // display_url serves the large thumbnail, rendered from that frame.
  expect(read.body.data.display_url).toMatch(new RegExp(`/media/${asset.token}/display\\?exp=`));
  expect(row.thumbnails.find((t) => t.size === "large")).toMatchObject({ width: 160, height: 90 });
});
