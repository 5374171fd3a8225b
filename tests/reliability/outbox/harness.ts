/**
 * An Easel server process for the outbox kill test. It starts the way `npm start` does (lib/boot.ts:
 * the database, the embedded executor with every job function, the outbox relay) on the database
 * its environment names (EASEL_DATA_DIR, or DATABASE_URL), and calls the API's route handlers
 * in-process.
 *
 *   HARNESS_MODE=write  (EASEL_TEST_CLOCK=1, EASEL_TEST_OUTBOX_PAUSE_MS set) creates a workspace,
 *                       a board, an asset on it and an asset_updated trigger to HARNESS_HOOK_URL,
 *                       prints "harness:ready <asset token>", then PATCHes the asset's title to
 *                       HARNESS_TITLE. The test kills the process while that write pauses between
 *                       its commit and the hand-off of its event (a "test pause after commit" log line).
 *   HARNESS_MODE=serve  starts, prints "harness:title <the asset's title>" and serves until SIGTERM.
 */
import { eq } from "drizzle-orm";
import * as assetRoute from "../../../app/v1/[slug]/assets/[token]/route";
import * as triggerRoute from "../../../app/v1/trigger/route";
import { createApiToken } from "../../../lib/auth/api-tokens";
import { createBoard } from "../../../lib/boards/create-board";
import { boot } from "../../../lib/boot";
import { serverDb } from "../../../lib/db";
import { assetBoards, assets, boards } from "../../../lib/db/schema";
import { jobFunctions } from "../../../lib/db/schema/jobs";
import { getDeps } from "../../../lib/deps";
import { createWorkspace } from "../../../lib/workspaces/manage-workspaces";

const SLUG = "outbox-kill";
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

async function api(handler: Handler, token: string, method: string, path: string, params: Record<string, string>, json: unknown) {
  const req = new Request(`http://127.0.0.1${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(json) });
  const res = await handler(req, { params: Promise.resolve(params) });
  return { status: res.status, text: await res.text() };
}

async function main() {
  await boot();
  const { db } = await serverDb();
  if (process.env.HARNESS_MODE === "serve") {
    const [asset] = await db.select().from(assets).where(eq(assets.token, "outboxkill"));
    console.log(`harness:title ${asset?.title ?? "(none)"}`);
    process.once("SIGTERM", () => setTimeout(() => process.exit(0), 200));
    setInterval(() => undefined, 60_000);
    return;
  }
  // The executor must have synced its functions once: an event stored with no function known would start no run.
  while ((await db.select().from(jobFunctions)).length === 0) await new Promise((r) => setTimeout(r, 100));
  const now = new Date();
  const ws = await createWorkspace(db, { slug: SLUG, plan: "team", storage: "s3", now });
  const { token } = await createApiToken(db, { workspaceId: ws.id, name: "kill", scopes: ["read", "write"], webhooks: true, now });
  const board = await createBoard(await getDeps(), { workspace: ws, title: "Watched" });
  const [asset] = await db
    .insert(assets)
    .values({ workspaceId: ws.id, token: "outboxkill", title: "before the kill", mediaType: "image/png", size: 1, md5: "0".repeat(32), storageKey: `ws/${ws.id}/originals/kill`, createdAt: now, updatedAt: now })
    .returning();
  const [boardRow] = await db.select().from(boards).where(eq(boards.token, board.token));
  await db.insert(assetBoards).values({ assetId: asset.id, boardId: boardRow.id, createdAt: now });
  const trigger = await api(triggerRoute.POST as Handler, token, "POST", "/v1/trigger", {}, { hook: "asset_updated", hook_url: process.env.HARNESS_HOOK_URL, organization_slug: SLUG, collection_token: board.token });
  if (trigger.status !== 201) throw new Error(`trigger ${trigger.status} ${trigger.text}`);
  console.log(`harness:ready ${asset.token}`);
  const res = await api(assetRoute.PATCH as Handler, token, "PATCH", `/v1/${SLUG}/assets/${asset.token}`, { slug: SLUG, token: asset.token }, { asset: { title: process.env.HARNESS_TITLE } });
  // Reached only if nobody killed the process during the pause.
  console.log(`harness:patched ${res.status}`);
}

main().catch((err) => {
  console.error(`harness:failed ${(err as Error).stack}`);
  process.exit(1);
});
