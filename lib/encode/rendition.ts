import fs from "node:fs";
import path from "node:path";
import type { Deps } from "../deps";
import { log } from "../log/logger.mjs";
import { MediaLimitError } from "../sandbox/limit-error";
import { workspaceStorage } from "../storage/workspace-storage";
import type { EncodeOwner } from "./claim";
import { EncodeFailure } from "./errors";
import { renditionArgs, renditionTimeoutMs } from "./ffmpeg-args";
import { encodeDir, hlsContentType, INIT_NAME, PLAYLIST_NAME } from "./keys";
import { planLadder, type Rung } from "./ladder";
import { whileLeased } from "./lease";
import { eachLimited } from "./outputs";
import { avcCodecOf, bitRates, parseMediaPlaylist, type Variant } from "./playlists";
import { probeSource, type SourceInfo } from "./probe-source";
import { progressReporter } from "./progress";
import { runFfmpeg } from "./run-ffmpeg";
import { sourceFile, workDir } from "./source-file";

export type EncodePlan = { source: SourceInfo; rungs: Rung[] };

/** The probe step: the source's streams and size, and the ladder they call for. */
export async function planEncode(deps: Deps, owner: EncodeOwner, runId: string): Promise<EncodePlan> {
  const storage = workspaceStorage(deps, owner);
  return whileLeased(storage, owner.storageKey, runId, deps.clock, async () => {
    const source = await probeSource(await sourceFile(storage, owner.storageKey, runId));
    return { source, rungs: planLadder(source) };
  });
}

/**
 * One rendition step: encode the rung into the run's scratch folder, then upload it under the
 * run's stream folder (segments and init first, the playlist last). Nothing uploaded here is
 * reachable until the publish step writes the master playlist and points the asset at it. An
 * ffmpeg failure is retried with the step; a run cut short re-encodes only this rung.
 */
export async function encodeRendition(deps: Deps, owner: EncodeOwner, runId: string, plan: EncodePlan, rung: Rung): Promise<Variant> {
  const storage = workspaceStorage(deps, owner);
  const { source } = plan;
  return whileLeased(storage, owner.storageKey, runId, deps.clock, async () => {
    const input = await sourceFile(storage, owner.storageKey, runId);
    const scratch = workDir(runId);
    // A folder per attempt: an earlier attempt's ffmpeg may still be writing to its own.
    const out = path.join(scratch, `${rung.name}-${process.pid}-${Date.now()}`);
    await fs.promises.mkdir(out, { recursive: true });
    const started = Date.now();
    const timeoutMs = renditionTimeoutMs(source);
    log().info({ component: "encode", asset_id: owner.assetId, rendition: rung.name, time_limit_s: timeoutMs / 1000 }, "rendition encode started");
    try {
      const progress = progressReporter(deps, owner);
      const share = ladderShares(plan.rungs, rung);
      const onPosition = source.durationSeconds ? (s: number) => progress.report(share.before + share.own * Math.min(1, s / source.durationSeconds!), rung.name) : undefined;
      try {
        await runFfmpeg(renditionArgs(input, source, rung, out), { timeoutMs, pidFile: path.join(scratch, `${rung.name}.pid`), scratch, onPosition });
      } finally {
        await progress.settle();
      }
    } catch (err) {
      await fs.promises.rm(out, { recursive: true, force: true });
      // Over a media limit the same bytes would go over it again: no retry. Any other failure may pass.
      throw new EncodeFailure("encode_failed", `${rung.name}: ${(err as Error).message}`, err instanceof MediaLimitError);
    }
    const playlistText = await fs.promises.readFile(path.join(out, PLAYLIST_NAME), "utf8").catch(() => "");
    const playlist = parseMediaPlaylist(playlistText);
    if (!playlist.segments.length || !playlist.ended) throw new EncodeFailure("encode_failed", `${rung.name}: ffmpeg wrote no complete playlist`, false);
    const init = await fs.promises.readFile(path.join(out, playlist.map ?? INIT_NAME));
    const sizes = await Promise.all(playlist.segments.map(async (s) => (await fs.promises.stat(path.join(out, s.uri))).size));

    const dir = `${encodeDir(owner.storageKey, runId)}/${rung.name}`;
    const files = [playlist.map ?? INIT_NAME, ...playlist.segments.map((s) => s.uri)];
    await eachLimited(files, 4, async (name) => storage.write(`${dir}/${name}`, await fs.promises.readFile(path.join(out, name)), hlsContentType(name)));
    await storage.write(`${dir}/${PLAYLIST_NAME}`, Buffer.from(playlistText), hlsContentType(PLAYLIST_NAME));
    await fs.promises.rm(out, { recursive: true, force: true });

    const rates = bitRates(playlist.segments, sizes);
    const codecs = [avcCodecOf(init) ?? "avc1.640028", ...(source.audioIndex !== null ? ["mp4a.40.2"] : [])].join(",");
    log().info({ component: "encode", asset_id: owner.assetId, rendition: rung.name, duration_ms: Date.now() - started, segments: playlist.segments.length }, "rendition encode finished");
    return {
      uri: `${rung.name}/${PLAYLIST_NAME}`,
      width: rung.width,
      height: rung.height,
      bandwidth: rates.peak,
      averageBandwidth: rates.average,
      codecs,
      ...(source.fps ? { frameRate: Math.min(source.fps, 60) } : {}),
    };
  });
}

/** A rung's share of the whole ladder's work (by pixels, what the encode time follows), and the share of the rungs before it. */
function ladderShares(rungs: Rung[], rung: Rung): { before: number; own: number } {
  const pixels = (r: Rung) => r.width * r.height;
  const total = rungs.reduce((sum, r) => sum + pixels(r), 0);
  const at = rungs.indexOf(rung);
  const before = rungs.slice(0, Math.max(0, at)).reduce((sum, r) => sum + pixels(r), 0);
  return { before: before / total, own: pixels(rung) / total };
}
