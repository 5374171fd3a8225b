/**
 * An Easel server process for the media shutdown test, started the way `npm start` starts one:
 * instrumentation.ts's register() (database, embedded executor with every job function, outbox
 * relay, the published shutdown) and Easel's HTTP server (lib/server/http-server.mjs), with
 * lib/server/start.mjs's stop sequence on SIGTERM (close the server, run the app's shutdown with
 * what is left of EASEL_SHUTDOWN_TIMEOUT_S, exit). Only the Next.js request handler is missing: it
 * needs a build, and this test sends no page request.
 *
 * It stores an SVG whose render runs for minutes (feMorphology r=1000 on 2000²), queues its
 * processing, and prints "harness:rendering <pids>" once the render's child runs.
 */
import { register } from "../../../instrumentation";
import { serverDb } from "../../../lib/db";
import { assets } from "../../../lib/db/schema";
import { getDeps } from "../../../lib/deps";
import { assetProcessingRequested } from "../../../lib/jobs/events";
import { livePids } from "../../../lib/sandbox/children";
import { createEaselServer } from "../../../lib/server/http-server.mjs";
import { workspaceStorage } from "../../../lib/storage/workspace-storage";
import { createWorkspace } from "../../../lib/workspaces/manage-workspaces";
import { svgMorphologyBomb } from "../bombs";

const SHUTDOWN = Symbol.for("easel.shutdown");

async function main() {
  const graceMs = Number(process.env.EASEL_SHUTDOWN_TIMEOUT_S) * 1000;
  const server = createEaselServer(async (_req, res) => void res.writeHead(404).end());
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  await register();
  process.on("SIGTERM", async () => {
    const deadline = Date.now() + graceMs;
    await new Promise((r) => server.close(r));
    const shutdownApp = (globalThis as { [SHUTDOWN]?: (ms: number) => Promise<void> })[SHUTDOWN];
    await shutdownApp?.(Math.max(1_000, deadline - Date.now()));
    console.log("harness:stopped");
    process.exit(0);
  });

  const { db } = await serverDb();
  const deps = await getDeps();
  const now = new Date();
  const ws = await createWorkspace(db, { slug: `media-stop-${process.pid}`, plan: "team", storage: "s3", now });
  const bytes = svgMorphologyBomb();
  const key = `ws/${ws.id}/originals/slow-render`;
  await workspaceStorage(deps, ws).write(key, bytes, "image/svg+xml");
  const [asset] = await db
    .insert(assets)
    .values({ workspaceId: ws.id, token: `slow${process.pid}`, title: "slow render", mediaType: "image/svg+xml", size: bytes.length, md5: "0".repeat(32), storageKey: key, createdAt: now, updatedAt: now })
    .returning();
  await deps.jobs.send(assetProcessingRequested, { assetId: asset.id });
  for (;;) {
    const pids = livePids();
    if (pids.length) {
      console.log(`harness:rendering ${pids.join(",")}`);
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  setInterval(() => undefined, 60_000);
}

main().catch((err: unknown) => {
  console.error("harness:failed", err);
  process.exit(1);
});
