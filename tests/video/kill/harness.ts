/**
 * A worker process for the kill -9 test: Easel's encode function served over HTTP and driven by
 * the embedded executor, on a PGlite data dir and the embedded object store (gcs kind: local
 * files), so everything survives the kill. ffmpeg and the encode log to stdout.
 *   HARNESS_DIR   data dir: PGlite under db/, objects under objects/ (EASEL_DATA_DIR)
 *   HARNESS_CLIP  the source clip (first life only)
 *   HARNESS_SEND  "1": create the asset and queue its encode (the first life)
 * Prints "harness:asset <id>" once queued and "harness:done <json>" when the encode has ended
 * (with the ETag of every file the published stream names). A later life first prints
 * "harness:stored <json>": the ETag of every segment the interrupted run had stored, read before
 * its executor starts.
 */
import fs from "node:fs";
import path from "node:path";
import { eq } from "drizzle-orm";
import { serve } from "inngest/next";
import { systemClock } from "../../../lib/clock";
import { openDb } from "../../../lib/db/client";
import { assets } from "../../../lib/db/schema";
import { setDeps, type Deps } from "../../../lib/deps";
import { encodeVideoJob } from "../../../lib/encode/encode-video.job";
import { encodeDir, streamDirOf } from "../../../lib/encode/keys";
import { STANDARD_RUNGS } from "../../../lib/encode/ladder";
import { readLease } from "../../../lib/encode/lease";
import { parseMediaPlaylist } from "../../../lib/encode/playlists";
import { queueEncode } from "../../../lib/encode/status";
import { inngest, useSigningKey } from "../../../lib/jobs/client";
import { Executor, httpTransport, signingKeyFromSecret } from "../../../lib/jobs/executor";
import { inngestJobSender } from "../../../lib/jobs/send";
import { getSecret } from "../../../lib/secrets";
import { storageFor } from "../../../lib/storage";
import { createWorkspace } from "../../../lib/workspaces/manage-workspaces";
import { serveOverHttp } from "../../jobs/fixtures/http-server";

const dir = process.env.HARNESS_DIR!;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const handle = await openDb({ dataDir: path.join(dir, "db"), role: "server" });
  const { db } = handle;
  const deps: Deps = { db, clock: systemClock, jobs: inngestJobSender(inngest), storage: (kind, baseUrl) => storageFor(kind, { baseUrl, db, clock: systemClock }) };
  setDeps(deps);
  await useSigningKey(inngest, db);
  const signingKey = signingKeyFromSecret(await getSecret(db, "jobs_signing_key"));
  const server = await serveOverHttp(serve({ client: inngest, functions: [encodeVideoJob], enableUnauthedSync: false }));
  const executor = new Executor({
    db,
    clock: systemClock,
    signingKey,
    serveUrl: server.url,
    transport: httpTransport(),
    pollMs: 100,
    leaseMs: 3000,
    backoffMs: () => 200,
    reclaimLeasesOnStart: true,
    log: { info: () => undefined, warn: (m) => console.warn(m), error: (m) => console.error(m) },
  });
  await executor.sync();
  const storage = deps.storage("gcs", "http://127.0.0.1:1");
  if (process.env.HARNESS_SEND !== "1") {
    // What the cut-short run stored, by the lease's run: each rung's stored playlist and its segments' ETags.
    const [asset] = await db.select().from(assets).where(eq(assets.token, "killclip"));
    const lease = await readLease(storage, asset.storageKey);
    const stored: Record<string, string> = {};
    for (const side of STANDARD_RUNGS) {
      const base = `${encodeDir(asset.storageKey, lease!.runId)}/${side}p`;
      if (!(await storage.head(`${base}/index.m3u8`))) continue;
      const playlist = parseMediaPlaylist(await new Response(await storage.read(`${base}/index.m3u8`)).text());
      for (const s of playlist.segments) stored[`${side}p/${s.uri}`] = (await storage.head(`${base}/${s.uri}`))!.etag;
    }
    console.log(`harness:stored ${JSON.stringify(stored)}`);
  }
  executor.start();

  if (process.env.HARNESS_SEND === "1") {
    const ws = await createWorkspace(db, { slug: "kill-video", plan: "team", storage: "gcs", now: new Date() });
    const bytes = fs.readFileSync(process.env.HARNESS_CLIP!);
    const key = `ws/${ws.id}/originals/kill-clip`;
    await storage.write(key, bytes, "video/mp4");
    const now = new Date();
    const [asset] = await db
      .insert(assets)
      .values({ workspaceId: ws.id, token: "killclip", title: "clip", mediaType: "video/mp4", size: bytes.length, md5: "0".repeat(32), storageKey: key, createdAt: now, updatedAt: now })
      .returning();
    await queueEncode(deps, asset, ["none"]);
    console.log(`harness:asset ${asset.id}`);
  }

  for (;;) {
    const [asset] = await db.select().from(assets).where(eq(assets.token, "killclip"));
    if (asset && (asset.encodeStatus === "ready" || asset.encodeStatus === "failed")) {
      // Count what the published playlists reference and check each file is in storage.
      let files = 0;
      let missing = 0;
      let seconds = 0;
      const etags: Record<string, string> = {};
      if (asset.streamKey) {
        const text = async (key: string) => new Response(await storage.read(key)).text();
        const master = await text(asset.streamKey);
        for (const uri of master.split("\n").filter((l) => l && !l.startsWith("#"))) {
          const base = `${streamDirOf(asset.streamKey)}/${path.dirname(uri)}`;
          const playlist = parseMediaPlaylist(await text(`${streamDirOf(asset.streamKey)}/${uri}`));
          seconds = Math.max(seconds, playlist.segments.reduce((sum, s) => sum + s.duration, 0));
          for (const name of [playlist.map!, ...playlist.segments.map((s) => s.uri)]) {
            files++;
            const info = await storage.head(`${base}/${name}`);
            if (!info) missing++;
            else etags[`${path.dirname(uri)}/${name}`] = info.etag;
          }
        }
      }
      console.log(`harness:done ${JSON.stringify({ status: asset.encodeStatus, error: asset.encodeError, files, missing, seconds, etags })}`);
      await executor.stop();
      await server.close();
      await handle.close();
      process.exit(0);
    }
    await pause(200);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
