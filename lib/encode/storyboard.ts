import fs from "node:fs";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { assets } from "../db/schema";
import type { Deps } from "../deps";
import { log } from "../log/logger.mjs";
import { STORYBOARD_SPRITE, storyboardKeyOf } from "../media/storyboard-files";
import { MediaStoppedError } from "../sandbox/limit-error";
import { encodeTimeoutMs } from "../sandbox/limits";
import { workspaceStorage } from "../storage/workspace-storage";
import type { EncodeOwner } from "./claim";
import { encodeDir } from "./keys";
import { whileLeased } from "./lease";
import type { SourceInfo } from "./probe-source";
import { runFfmpeg } from "./run-ffmpeg";
import { sourceFile, workDir } from "./source-file";
import { planStoryboard, spriteGrid, storyboardTrack, type StoryboardPlan } from "./storyboard-plan";

const TILE_PATTERN = "tile_%04d.jpg";

/**
 * The ffmpeg commands of a storyboard: one decode of the source picks a frame every interval and
 * scales it to a tile (its own JPEG, so the tiles made are counted, not predicted from the
 * probed duration); a second command lays them out row by row into the sprite.
 */
export function storyboardArgs(input: string, source: SourceInfo, plan: StoryboardPlan, outDir: string): { tiles: string[]; sprite: (tiles: number) => string[] } {
  const tiles = [
    "-nostdin", "-v", "error", "-y",
    "-i", input,
    "-map", `0:${source.videoIndex}`, "-an", "-sn", "-dn",
    "-vf", `fps=1/${plan.intervalSeconds},scale=${plan.tileWidth}:${plan.tileHeight}:flags=bilinear,setsar=1`,
    "-frames:v", String(plan.maxTiles), "-q:v", "5",
    path.join(outDir, TILE_PATTERN),
  ];
  const sprite = (count: number) => {
    const { columns, rows } = spriteGrid(count);
    return [
      "-nostdin", "-v", "error", "-y",
      "-f", "image2", "-framerate", "1", "-i", path.join(outDir, TILE_PATTERN),
      "-vf", `tile=${columns}x${rows}`, "-frames:v", "1", "-q:v", "4",
      path.join(outDir, STORYBOARD_SPRITE),
    ];
  };
  return { tiles, sprite };
}

export type StoryboardResult = { storyboardKey: string | null; tiles: number };

/**
 * The storyboard step of an encode: frames of the source every few seconds as a sprite sheet and
 * a WebVTT thumbnails track, both in ffmpeg children under the media limits, uploaded into the
 * run's folder (lib/media/storyboard-files.ts). The asset then names this run's track in
 * `storyboard_key`, if its head still holds these bytes; the media route serves it only once
 * this run's stream is the published one. Scrubbing previews are an extra: if they cannot be
 * made, the encode goes on and the asset has none (`storyboard_key` cleared, so no earlier
 * run's is left pointing at a stream that is no longer the head's).
 */
export async function makeStoryboard(deps: Deps, owner: EncodeOwner, runId: string, source: SourceInfo): Promise<StoryboardResult> {
  const storage = workspaceStorage(deps, owner);
  const dir = encodeDir(owner.storageKey, runId);
  let result: StoryboardResult = { storyboardKey: null, tiles: 0 };
  try {
    result = await whileLeased(storage, owner.storageKey, runId, deps.clock, async () => {
      const input = await sourceFile(storage, owner.storageKey, runId);
      const scratch = workDir(runId);
      const out = path.join(scratch, `storyboard-${process.pid}-${Date.now()}`);
      await fs.promises.mkdir(out, { recursive: true });
      try {
        const plan = planStoryboard(source);
        const args = storyboardArgs(input, source, plan, out);
        const run = (a: string[]) => runFfmpeg(a, { timeoutMs: encodeTimeoutMs(source.durationSeconds), pidFile: path.join(scratch, "storyboard.pid"), scratch });
        await run(args.tiles);
        const tiles = (await fs.promises.readdir(out)).filter((f) => /^tile_\d{4}\.jpg$/.test(f)).length;
        if (!tiles) throw new Error("ffmpeg wrote no storyboard tiles");
        await run(args.sprite(tiles));
        await storage.write(`${dir}/${STORYBOARD_SPRITE}`, await fs.promises.readFile(path.join(out, STORYBOARD_SPRITE)), "image/jpeg");
        // The track last: a track in storage always names a sprite that is there.
        const key = storyboardKeyOf(dir);
        await storage.write(key, Buffer.from(storyboardTrack(plan, tiles, source.durationSeconds)), "text/vtt");
        return { storyboardKey: key, tiles };
      } finally {
        await fs.promises.rm(out, { recursive: true, force: true });
      }
    });
  } catch (err) {
    // A server stop ends the child: the step runs again after the restart.
    if (err instanceof MediaStoppedError) throw err;
    log().warn({ component: "encode", asset_id: owner.assetId, run_id: runId, err }, "storyboard failed; the video is published without scrubbing previews");
  }
  await deps.db
    .update(assets)
    .set({ storyboardKey: result.storyboardKey })
    .where(and(eq(assets.id, owner.assetId), eq(assets.storageKey, owner.storageKey)));
  return result;
}
