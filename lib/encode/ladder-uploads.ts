import fs from "node:fs";
import path from "node:path";
import { log } from "../log/logger.mjs";
import type { StorageDriver } from "../storage/types";
import { EncodeFailure } from "./errors";
import { hlsContentType, INIT_NAME, PLAYLIST_NAME, segmentName } from "./keys";
import type { Rung } from "./ladder";
import { eachLimited } from "./outputs";
import { mediaPlaylist, parseMediaPlaylist, type MediaSegment } from "./playlists";
import type { ResumePoint } from "./resume-point";
import { whenMissing } from "./when-missing";

type RenditionState = { segments: MediaSegment[]; sizes: number[]; initStored: boolean };

/**
 * Moves what the ladder's ffmpeg has finished from the scratch folder to the run's stream folder
 * while it runs, so that a crash loses at most the segments in progress. ffmpeg lists a segment in
 * its playlist once the segment is closed (and writes both through temporary names), so a listed
 * segment is complete. Segments are stored in lockstep: only indices every rung has finished, then
 * each rung's playlist of what is stored (no `#EXT-X-ENDLIST` before the end). That is the record
 * `readResumePoint` reads after a crash. Stored segments are removed from the scratch folder.
 */
export class LadderUploads {
  private readonly state = new Map<string, RenditionState>();
  /** The first segment this attempt's ffmpeg writes: the resume point (stored in every rung before it). */
  private readonly start: number;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly storage: StorageDriver,
    /** The run's stream folder in storage. */
    private readonly dir: string,
    /** The attempt's scratch folder: `<outDir>/<rung>/`. */
    private readonly outDir: string,
    private readonly rungs: Rung[],
    resume: ResumePoint,
    /** Fields of the debug line logged for each round that stored segments. */
    private readonly logFields: Record<string, unknown> = {},
  ) {
    this.start = resume.startSegment;
    for (const rung of rungs) {
      const stored = resume.stored.get(rung.name);
      this.state.set(rung.name, { segments: [...(stored?.segments ?? [])], sizes: [...(stored?.sizes ?? [])], initStored: resume.startSegment > 0 });
    }
  }

  /** Stores what is finished; `final` once ffmpeg has exited 0: everything, with complete playlists. Calls run one after another. */
  sync(final: boolean): Promise<void> {
    const next = this.queue.then(() => this.syncNow(final));
    // The caller gets this call's failure through `next`; the queue only keeps the order.
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Each rung's segments and their sizes, as stored. */
  renditions(): Map<string, { segments: MediaSegment[]; sizes: number[] }> {
    return this.state;
  }

  private async syncNow(final: boolean): Promise<void> {
    const local = await Promise.all(
      this.rungs.map(async (rung) => parseMediaPlaylist(await fs.promises.readFile(path.join(this.outDir, rung.name, PLAYLIST_NAME), "utf8").catch(whenMissing("")))),
    );
    if (final && local.some((l) => !l.ended || l.segments.length === 0)) throw new EncodeFailure("encode_failed", "ffmpeg wrote no complete playlist", false);
    // The end is stored only by the final call: before it, a playlist may already list the last segment.
    if (!final && local.some((l) => l.ended)) return;
    const counts = local.map((l) => this.start + l.segments.length);
    const upTo = final ? null : Math.min(...counts);
    const uploads: { rung: Rung; index: number; segment: MediaSegment }[] = [];
    this.rungs.forEach((rung, i) => {
      const st = this.state.get(rung.name)!;
      const end = upTo ?? counts[i];
      for (let index = st.segments.length; index < end; index++) {
        const segment = local[i].segments[index - this.start];
        if (segment.uri !== segmentName(index)) throw new EncodeFailure("encode_failed", `${rung.name}: ffmpeg named segment ${index} ${segment.uri}`, false);
        uploads.push({ rung, index, segment });
      }
    });
    if (!uploads.length && !final) return;
    const inits = this.rungs.filter((r) => !this.state.get(r.name)!.initStored);
    await eachLimited(inits, 4, async (rung) => {
      await this.storage.write(`${this.dir}/${rung.name}/${INIT_NAME}`, await fs.promises.readFile(path.join(this.outDir, rung.name, INIT_NAME)), hlsContentType(INIT_NAME));
      this.state.get(rung.name)!.initStored = true;
    });
    const sizes = new Map<string, number>();
    await eachLimited(uploads, 4, async ({ rung, segment }) => {
      const file = path.join(this.outDir, rung.name, segment.uri);
      const bytes = await fs.promises.readFile(file);
      await this.storage.write(`${this.dir}/${rung.name}/${segment.uri}`, bytes, hlsContentType(segment.uri));
      sizes.set(`${rung.name}/${segment.uri}`, bytes.length);
      await fs.promises.rm(file, { force: true });
    });
    for (const { rung, segment } of uploads) {
      const st = this.state.get(rung.name)!;
      st.segments.push(segment);
      st.sizes.push(sizes.get(`${rung.name}/${segment.uri}`)!);
    }
    await eachLimited(this.rungs, 4, async (rung) => {
      const text = mediaPlaylist(this.state.get(rung.name)!.segments, INIT_NAME, final);
      await this.storage.write(`${this.dir}/${rung.name}/${PLAYLIST_NAME}`, Buffer.from(text), hlsContentType(PLAYLIST_NAME));
    });
    if (uploads.length) {
      const indices = uploads.map((u) => u.index);
      log().debug({ component: "encode", ...this.logFields, from: Math.min(...indices), to: Math.max(...indices), final }, "segments stored");
    }
  }
}
