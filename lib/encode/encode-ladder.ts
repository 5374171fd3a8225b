import fs from "node:fs";
import path from "node:path";
import type { Deps } from "../deps";
import { log } from "../log/logger.mjs";
import { MediaLimitError } from "../sandbox/limit-error";
import type { StorageDriver } from "../storage/types";
import { workspaceStorage } from "../storage/workspace-storage";
import type { EncodeOwner } from "./claim";
import { EncodeFailure } from "./errors";
import { ladderArgs, ladderTimeoutMs, MAX_FPS, SEGMENT_SECONDS } from "./ffmpeg-args";
import { encodeDir, INIT_NAME } from "./keys";
import type { Rung } from "./ladder";
import { LadderUploads } from "./ladder-uploads";
import { whileLeased } from "./lease";
import type { EncodePlan } from "./plan-encode";
import { avcCodecOf, bitRates, type MediaSegment, type Variant } from "./playlists";
import { progressReporter } from "./progress";
import { readResumePoint } from "./resume-point";
import { runFfmpeg } from "./run-ffmpeg";
import { sourceFile, workDir } from "./source-file";
import { whenMissing } from "./when-missing";

/** How often finished segments are moved to storage while ffmpeg runs. */
const UPLOAD_EVERY_MS = 1000;

/**
 * The ladder step: one ffmpeg decodes the source once and writes every rung (lib/encode/ffmpeg-args.ts),
 * while finished segments go to the run's stream folder in lockstep (lib/encode/ladder-uploads.ts).
 * A step cut short (a crash, a kill -9, a stop) runs again from the first segment not stored in
 * every rung: what was stored is neither encoded nor uploaded again. Nothing stored here is
 * reachable until the publish step writes the master playlist and points the asset at it. An
 * ffmpeg failure is retried with the step (resuming the same way); one over a media limit is not.
 */
export async function encodeLadder(deps: Deps, owner: EncodeOwner, runId: string, plan: EncodePlan): Promise<Variant[]> {
  const storage = workspaceStorage(deps, owner);
  const { source, rungs } = plan;
  const dir = encodeDir(owner.storageKey, runId);
  return whileLeased(storage, owner.storageKey, runId, deps.clock, async () => {
    const resume = await readResumePoint(storage, dir, rungs, source.durationSeconds);
    if (resume.done) {
      log().info({ component: "encode", asset_id: owner.assetId, rungs: rungs.map((r) => r.name) }, "ladder already stored by an earlier attempt");
      return variantsOf(storage, dir, plan, resume.stored, null);
    }
    const input = await sourceFile(storage, owner.storageKey, runId);
    const scratch = workDir(runId);
    // A folder per attempt: an earlier attempt's ffmpeg may still be writing to its own.
    const out = path.join(scratch, `ladder-${process.pid}-${Date.now()}`);
    await Promise.all(rungs.map((r) => fs.promises.mkdir(path.join(out, r.name), { recursive: true })));
    const started = Date.now();
    const timeoutMs = ladderTimeoutMs(source, rungs.length);
    const startSeconds = resume.startSegment * SEGMENT_SECONDS;
    log().info(
      { component: "encode", asset_id: owner.assetId, rungs: rungs.map((r) => r.name), start_segment: resume.startSegment, start_seconds: startSeconds, time_limit_s: timeoutMs / 1000 },
      "ladder encode started",
    );
    const uploads = new LadderUploads(storage, dir, out, rungs, resume, { asset_id: owner.assetId });
    const progress = progressReporter(deps, owner);
    const top = rungs[rungs.length - 1].name;
    const duration = source.durationSeconds;
    const onPosition = duration ? (s: number) => progress.report((startSeconds + s) / duration, top) : undefined;
    const timer = setInterval(
      () => void uploads.sync(false).catch((err: unknown) => log().warn({ component: "encode", asset_id: owner.assetId, err }, "storing finished segments failed; retried at the next round and at the end")),
      UPLOAD_EVERY_MS,
    );
    try {
      await runFfmpeg(ladderArgs(input, source, rungs, out, resume.startSegment), { timeoutMs, pidFile: path.join(scratch, "ladder.pid"), scratch, onPosition });
      clearInterval(timer);
      await uploads.sync(true);
    } catch (err) {
      clearInterval(timer);
      // What ffmpeg finished before it failed is stored, so that the step's retry starts after it.
      await uploads
        .sync(false)
        .catch((syncErr: unknown) => log().warn({ component: "encode", asset_id: owner.assetId, err: syncErr }, "could not store the segments finished before ffmpeg failed; a retry encodes them again"));
      await fs.promises.rm(out, { recursive: true, force: true });
      if (err instanceof EncodeFailure) throw err;
      // Over a media limit the same bytes would go over it again: no retry. Any other failure may pass.
      throw new EncodeFailure("encode_failed", `ladder: ${(err as Error).message}`, err instanceof MediaLimitError);
    } finally {
      await progress.settle();
    }
    const variants = await variantsOf(storage, dir, plan, uploads.renditions(), out);
    await fs.promises.rm(out, { recursive: true, force: true });
    const segments = uploads.renditions().get(top)?.segments.length ?? 0;
    log().info({ component: "encode", asset_id: owner.assetId, rungs: rungs.map((r) => r.name), start_segment: resume.startSegment, duration_ms: Date.now() - started, segments }, "ladder encode finished");
    return variants;
  });
}

/** The master playlist's entry of each rung: peak and average rates from the stored sizes, the codec from its init segment. */
async function variantsOf(storage: StorageDriver, dir: string, plan: EncodePlan, renditions: Map<string, { segments: MediaSegment[]; sizes: number[] }>, out: string | null): Promise<Variant[]> {
  const { source } = plan;
  return Promise.all(
    plan.rungs.map(async (rung: Rung) => {
      const { segments, sizes } = renditions.get(rung.name)!;
      const init = out
        ? await fs.promises.readFile(path.join(out, rung.name, INIT_NAME)).catch(whenMissing(null))
        : null;
      const initBytes = init ?? new Uint8Array(await new Response(await storage.read(`${dir}/${rung.name}/${INIT_NAME}`)).arrayBuffer());
      const rates = bitRates(segments, sizes);
      const codecs = [avcCodecOf(initBytes) ?? "avc1.640028", ...(source.audioIndex !== null ? ["mp4a.40.2"] : [])].join(",");
      return {
        uri: `${rung.name}/index.m3u8`,
        width: rung.width,
        height: rung.height,
        bandwidth: rates.peak,
        averageBandwidth: rates.average,
        codecs,
        ...(source.fps ? { frameRate: Math.min(source.fps, MAX_FPS) } : {}),
      };
    }),
  );
}
