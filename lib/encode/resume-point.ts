import type { StorageDriver } from "../storage/types";
import { SEGMENT_SECONDS } from "./ffmpeg-args";
import { INIT_NAME, PLAYLIST_NAME, segmentName } from "./keys";
import type { Rung } from "./ladder";
import { eachLimited } from "./outputs";
import { parseMediaPlaylist, type MediaSegment } from "./playlists";

/** What storage holds of one rendition of a run: its segments in order (with their sizes) behind its init segment. */
export type StoredRendition = { segments: MediaSegment[]; sizes: number[] };

/**
 * Where the ladder step of a run starts: `done` when every rendition's complete playlist is
 * stored (a step cut short after its last upload), else the first segment not yet stored in
 * every rendition (0 for a new encode), with what is stored before it.
 */
export type ResumePoint = { done: boolean; startSegment: number; stored: Map<string, StoredRendition> };

/**
 * Reads the resume point of a run from storage. While encoding, the step stores segments in
 * lockstep across the rungs, then each rung's playlist of the segments stored so far (no
 * `#EXT-X-ENDLIST` until the end), so a stored playlist names only segments that are there, and a
 * segment index every playlist names is complete in every rung. Anything that does not fit (a
 * missing init segment, unexpected names, a start at or past the probed end) starts from zero.
 */
export async function readResumePoint(storage: StorageDriver, dir: string, rungs: Rung[], durationSeconds: number | null): Promise<ResumePoint> {
  const lists = await Promise.all(
    rungs.map(async (rung) => {
      const base = `${dir}/${rung.name}`;
      const [playlist, init] = await Promise.all([storage.head(`${base}/${PLAYLIST_NAME}`), storage.head(`${base}/${INIT_NAME}`)]);
      if (!playlist || !init) return null;
      const parsed = parseMediaPlaylist(await new Response(await storage.read(`${base}/${PLAYLIST_NAME}`)).text());
      const inOrder = parsed.map === INIT_NAME && parsed.segments.every((s, i) => s.uri === segmentName(i) && s.duration > 0);
      return inOrder ? parsed : null;
    }),
  );
  const fresh: ResumePoint = { done: false, startSegment: 0, stored: new Map() };
  if (lists.some((l) => l === null)) return fresh;
  const complete = lists.every((l) => l!.ended && l!.segments.length > 0);
  const start = complete ? 0 : Math.min(...lists.map((l) => (l!.ended ? 0 : l!.segments.length)));
  if (!complete && (start === 0 || (durationSeconds !== null && start * SEGMENT_SECONDS >= durationSeconds))) return fresh;
  const stored = new Map<string, StoredRendition>();
  let missing = false;
  await eachLimited(
    rungs.map((rung, i) => ({ rung, segments: complete ? lists[i]!.segments : lists[i]!.segments.slice(0, start) })),
    2,
    async ({ rung, segments }) => {
      const sizes = new Array<number>(segments.length).fill(0);
      await eachLimited(
        segments.map((s, i) => ({ s, i })),
        4,
        async ({ s, i }) => {
          const info = await storage.head(`${dir}/${rung.name}/${s.uri}`);
          if (!info) missing = true;
          else sizes[i] = info.size;
        },
      );
      stored.set(rung.name, { segments, sizes });
    },
  );
  // A segment a stored playlist names is gone (deleted by hand, or a store that lost it): start again.
  if (missing) return fresh;
  return { done: complete, startSegment: complete ? 0 : start, stored };
}
