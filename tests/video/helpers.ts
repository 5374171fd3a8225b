import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { serve } from "inngest/next";
import { afterAll } from "vitest";
import * as retryRoute from "../../app/v1/[slug]/assets/[token]/retry_video_processing/route";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import type { Db } from "../../lib/db";
import { assets, type Asset, type Workspace } from "../../lib/db/schema";
import { setDeps, type Deps } from "../../lib/deps";
import { encodeVideoJob } from "../../lib/encode/encode-video.job";
import { inngest, useSigningKey } from "../../lib/jobs/client";
import { Executor, inProcessTransport, signingKeyFromSecret } from "../../lib/jobs/executor";
import { inngestJobSender, recordingJobSender, type JobSender } from "../../lib/jobs/send";
import { binaries } from "../../lib/media/ffmpeg";
import { processAssetJob } from "../../lib/media/process-asset.job";
import { serveMedia } from "../../lib/media/serve-media";
import { getSecret } from "../../lib/secrets";
import { call } from "../helpers/call-route";
import { testClock } from "../helpers/deps";
import { resolverOf, testStores, type TestStores } from "../helpers/test-storage";
import { jobsDb } from "../jobs/helpers";

export type VideoDeps = Deps & { time: ReturnType<typeof testClock>; jobs: ReturnType<typeof recordingJobSender>; store: TestStores };

const clipDir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-video-clips-"));
let executor: Executor | null = null;
// Registered at import (vitest ignores hooks registered from inside a running hook), after the
// test database's: after-hooks run last-registered first, so the executor stops (letting calls
// in flight end) before the database closes.
afterAll(async () => {
  await executor?.stop();
  fs.rmSync(clipDir, { recursive: true, force: true });
});

export type ClipOptions = {
  /** WxH of the picture as stored (default 320x180). */
  size?: string;
  seconds?: number;
  audio?: boolean;
  /** Store a 90° display rotation, as phones do for portrait video. */
  rotate?: boolean;
  /** Odd sizes need a chroma format without subsampling in the source. */
  pixFmt?: string;
  /** Only an AAC track, in an MP4 container (sniffed as video/mp4). */
  audioOnly?: boolean;
  /** testsrc2 with noise: motion that costs the encoder something. */
  noisy?: boolean;
};

/** A generated clip (lavfi testsrc + sine), small and short so the suite stays fast on two cores. */
export function makeClip(opts: ClipOptions = {}): Buffer {
  const { size = "320x180", seconds = 3, audio = true, pixFmt = "yuv420p" } = opts;
  const file = path.join(clipDir, `clip-${Math.random().toString(36).slice(2)}.mp4`);
  const ff = (args: string[]) => execFileSync(binaries().ffmpeg, ["-nostdin", "-v", "error", "-y", ...args]);
  if (opts.audioOnly) {
    ff(["-f", "lavfi", "-i", `sine=frequency=440:duration=${seconds}`, "-c:a", "aac", file]);
    return fs.readFileSync(file);
  }
  const video = opts.noisy ? `testsrc2=size=${size}:rate=25:duration=${seconds},noise=alls=30:allf=t` : `testsrc=size=${size}:rate=25:duration=${seconds}`;
  const sound = audio ? ["-f", "lavfi", "-i", `sine=frequency=440:duration=${seconds}`, "-c:a", "aac", "-shortest"] : [];
  ff(["-f", "lavfi", "-i", video, ...sound, "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", pixFmt, file]);
  if (!opts.rotate) return fs.readFileSync(file);
  const rotated = file.replace(/\.mp4$/, "-rotated.mp4");
  ff(["-i", file, "-c", "copy", "-metadata:s:v:0", "rotate=90", rotated]);
  return fs.readFileSync(rotated);
}

/**
 * This file's test deps, with jobs that actually run: every event is recorded and also sent
 * through Easel's Inngest client to an embedded executor on the test database, which calls the
 * processing and encode functions in-process.
 */
export async function useVideoJobs(): Promise<VideoDeps & { executor: Executor }> {
  // A database of the file's own even on Postgres, where test files otherwise share one: two
  // executors on one database would run each other's encodes against the wrong store.
  const { db } = await jobsDb();
  const time = testClock();
  const store = testStores(db, time.clock);
  const deps: VideoDeps = { db, clock: time.clock, time, jobs: recordingJobSender(), storage: resolverOf(store), store };
  const real = inngestJobSender(inngest);
  const jobs: JobSender = {
    async send(event, data, options) {
      await deps.jobs.send(event, data, options);
      await real.send(event, data, options);
    },
  };
  setDeps({ db: deps.db, clock: deps.clock, storage: deps.storage, jobs });
  await useSigningKey(inngest, deps.db);
  const signingKey = signingKeyFromSecret(await getSecret(deps.db, "jobs_signing_key"));
  const handlers = serve({ client: inngest, functions: [processAssetJob, encodeVideoJob], enableUnauthedSync: false });
  const quiet = { info: () => undefined, warn: (m: string) => console.warn(m), error: (m: string) => console.error(m) };
  executor = new Executor({
    db: deps.db,
    clock: deps.clock,
    signingKey,
    serveUrl: "http://127.0.0.1:3999/api/inngest",
    transport: inProcessTransport(handlers),
    pollMs: 100,
    leaseMs: 10_000,
    backoffMs: () => 200,
    log: quiet,
  });
  await executor.sync();
  executor.start();
  return { ...deps, executor };
}

export const assetRow = async (db: Db, id: number): Promise<Asset> => (await db.select().from(assets).where(eq(assets.id, id)))[0];

/** Polls until `test` holds for the asset row (encodes of small clips take a few seconds). */
export async function waitForAsset(db: Db, id: number, test: (a: Asset) => boolean, what: string, timeoutMs = 60_000): Promise<Asset> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await assetRow(db, id);
    if (row && test(row)) return row;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; asset: ${JSON.stringify({ status: row?.encodeStatus, error: row?.encodeError, stream: row?.streamKey })}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const getAsset = (ws: Workspace, token: string | null, assetToken: string) =>
  call(assetRoute.GET, { path: `/v1/${ws.slug}/assets/${assetToken}`, token, params: { slug: ws.slug, token: assetToken } });

export const retryEncode = (ws: Workspace, token: string | null, assetToken: string) =>
  call(retryRoute.POST, { method: "POST", path: `/v1/${ws.slug}/assets/${assetToken}/retry_video_processing`, token, params: { slug: ws.slug, token: assetToken } });

/** Polls `read` until `done` holds for its value. */
export async function waitFor<T>(read: () => T | Promise<T>, done: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** GET of a media URL through the media route, in-process. */
export async function fetchMedia(deps: VideoDeps, url: string, headers: Record<string, string> = {}): Promise<Response> {
  const u = new URL(url);
  const segments = u.pathname.replace(/^\/media\//, "").split("/").filter(Boolean);
  return serveMedia(deps, new Request(u.href, { headers }), segments);
}
