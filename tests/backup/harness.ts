/**
 * An Easel server process for the backup tests: it owns the data dir EASEL_DATA_DIR (embedded
 * PGlite, embedded object store) the way `npm start` does (openDb as "server", so it answers the
 * data dir's control channel, `backup` included), serves the store's S3 endpoint on a loopback
 * port, and calls the API's route handlers in-process.
 *
 *   HARNESS_MODE=load    creates a workspace and token, seeds assets, prints "harness:ready <token>",
 *                        then keeps uploading, writing versions, reverting and deleting through the
 *                        API ("harness:op <kind>" each) until SIGTERM; prints "harness:stats <json>".
 *   HARNESS_MODE=idle    owns the data dir and serves, doing nothing itself, until SIGTERM.
 *   HARNESS_MODE=verify  (HARNESS_TOKEN) lists every asset and version through the API and reads
 *                        each one's stored bytes through the S3 endpoint; prints "harness:verified <json>".
 */
import crypto from "node:crypto";
import { sql } from "drizzle-orm";
import * as revertRoute from "../../app/v1/[slug]/assets/[token]/revert/route";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import * as versionsRoute from "../../app/v1/[slug]/assets/[token]/versions/route";
import * as listRoute from "../../app/v1/[slug]/assets/route";
import * as completeRoute from "../../app/v1/[slug]/assets/upload_complete/route";
import * as prepareRoute from "../../app/v1/[slug]/assets/upload_prepare/route";
import { createApiToken } from "../../lib/auth/api-tokens";
import { createBoard } from "../../lib/boards/create-board";
import { systemClock } from "../../lib/clock";
import { openDb } from "../../lib/db/client";
import { queryRows } from "../../lib/db/types";
import { getDeps, setDeps } from "../../lib/deps";
import { env, resetEnvCache } from "../../lib/env";
import { recordingJobSender } from "../../lib/jobs/send";
import { serveS3 } from "../../lib/objectstore";
import { listen } from "../../lib/objectstore/testing/node-server";
import { storageFor } from "../../lib/storage";
import { createWorkspace } from "../../lib/workspaces/manage-workspaces";

const SLUG = "backup-load";
type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
const md5 = (b: Buffer) => crypto.createHash("md5").update(b).digest("hex");

async function main() {
  // The load is many times one client's rate: the limit is not what this process tests.
  process.env.EASEL_RATE_LIMIT_PER_MIN = "1000000";
  const store = await listen(serveS3);
  process.env.EASEL_PUBLIC_URL = store.origin;
  resetEnvCache();
  const handle = await openDb({ dataDir: env().dataDir, role: "server" });
  const { db } = handle;
  setDeps({ db, clock: systemClock, jobs: recordingJobSender(), storage: (kind, baseUrl) => storageFor(kind, { baseUrl, db, clock: systemClock }) });
  let token = process.env.HARNESS_TOKEN ?? "";

  async function api(handler: Handler, method: string, path: string, params: Record<string, string>, json?: unknown) {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (json !== undefined) headers["content-type"] = "application/json";
    const res = await handler(new Request(`${store.origin}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) }), { params: Promise.resolve(params) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, text };
  }

  /** prepare → bytes to the store (one PUT, or parts) → the signed storage id. */
  async function sendBytes(bytes: Buffer, asset: Record<string, unknown> = {}) {
    const p = await api(prepareRoute.POST as Handler, "POST", `/v1/${SLUG}/assets/upload_prepare`, { slug: SLUG }, { asset: { ...asset, media_type: "image/png", size: bytes.length } });
    if (p.status !== 200) throw new Error(`prepare ${p.status} ${p.text}`);
    const prep = p.body.data;
    if (prep.part_urls) {
      for (const [i, url] of (prep.part_urls as string[]).entries()) await put(url, bytes.subarray(i * prep.part_size, (i + 1) * prep.part_size));
    } else await put(prep.upload_url, bytes);
    return prep as { signed_storage_id: string; multipart_upload_id: string | null };
  }

  if (process.env.HARNESS_MODE === "idle") {
    console.log(`harness:ready ${process.pid}`);
    await new Promise((resolve) => process.once("SIGTERM", resolve));
    await handle.close();
    await store.close();
    return;
  }

  if (process.env.HARNESS_MODE === "verify") {
    console.log(`harness:verified ${JSON.stringify(await verify(api, storageFor("s3", { baseUrl: store.origin, db, clock: systemClock }), db))}`);
    await handle.close();
    await store.close();
    return;
  }

  // ---- load: a workspace, a token, some assets with versions
  const ws = await createWorkspace(db, { slug: SLUG, plan: "team", storage: "s3", now: new Date() });
  token = (await createApiToken(db, { workspaceId: ws.id, name: "load", scopes: ["read", "write"], webhooks: false, now: new Date() })).token;
  // Versions are written only for assets on an active board.
  const board = await createBoard(await getDeps(), { workspace: ws, title: "Load" });
  const live: string[][] = [[], [], []];
  const stats: Record<string, number> = { upload: 0, version: 0, revert: 0, delete: 0, unexpected: 0 };
  const unexpected: string[] = [];
  const expect = (what: string, res: { status: number; text: string }) => {
    if (res.status === 200 || res.status === 204) return true;
    stats.unexpected++;
    unexpected.push(`${what}: ${res.status} ${res.text.slice(0, 200)}`);
    return false;
  };
  const randomBytes = () => crypto.randomBytes(Math.random() < 0.04 ? 6 * 1024 * 1024 : 1 + Math.floor(Math.random() * 256 * 1024));

  async function upload(worker: number) {
    const prep = await sendBytes(randomBytes(), { title: `asset ${crypto.randomBytes(3).toString("hex")}`, collection_token: board.token });
    const c = await api(completeRoute.POST as Handler, "POST", `/v1/${SLUG}/assets/upload_complete`, { slug: SLUG }, { asset: { signed_storage_id: prep.signed_storage_id, multipart_upload_id: prep.multipart_upload_id ?? undefined } });
    if (expect("upload_complete", c)) live[worker].push(c.body.data.token);
  }
  async function writeVersion(assetToken: string) {
    const prep = await sendBytes(randomBytes());
    const res = await api(assetRoute.PATCH as Handler, "PATCH", `/v1/${SLUG}/assets/${assetToken}`, { slug: SLUG, token: assetToken }, { asset: { create_version: true, signed_storage_id: prep.signed_storage_id, comment: "load" } });
    expect("version write", res);
  }
  async function revert(assetToken: string) {
    const versions = await api(versionsRoute.GET as Handler, "GET", `/v1/${SLUG}/assets/${assetToken}/versions`, { slug: SLUG, token: assetToken });
    const stored = (versions.body?.data ?? []) as { version_number: number }[];
    if (!stored.length) return writeVersion(assetToken);
    const target = stored[Math.floor(Math.random() * stored.length)].version_number;
    expect("revert", await api(revertRoute.POST as Handler, "POST", `/v1/${SLUG}/assets/${assetToken}/revert`, { slug: SLUG, token: assetToken }, { version_number: target }));
  }

  for (let i = 0; i < 12; i++) {
    await upload(i % 3);
    await writeVersion(live[i % 3].at(-1)!);
  }
  console.log(`harness:ready ${token}`);

  let stopping = false;
  process.once("SIGTERM", () => (stopping = true));
  // Each worker writes only its own assets, so no operation races another on one asset by design.
  const worker = async (w: number) => {
    while (!stopping) {
      const mine = live[w];
      const roll = Math.random();
      const pick = () => mine[Math.floor(Math.random() * mine.length)];
      const kind = mine.length < 4 || roll < 0.3 ? "upload" : roll < 0.6 ? "version" : roll < 0.8 ? "revert" : "delete";
      try {
        if (kind === "upload") await upload(w);
        else if (kind === "version") await writeVersion(pick());
        else if (kind === "revert") await revert(pick());
        else {
          const victim = mine.splice(Math.floor(Math.random() * mine.length), 1)[0];
          expect("delete", await api(assetRoute.DELETE as Handler, "DELETE", `/v1/${SLUG}/assets/${victim}`, { slug: SLUG, token: victim }));
        }
      } catch (err) {
        stats.unexpected++;
        unexpected.push(`${kind}: ${(err as Error).message}`);
      }
      stats[kind]++;
      console.log(`harness:op ${kind}`);
    }
  };
  await Promise.all([0, 1, 2].map(worker));
  console.log(`harness:stats ${JSON.stringify({ ...stats, unexpected })}`);
  await handle.close();
  await store.close();
}

async function put(url: string, body: Buffer) {
  const res = await fetch(url, { method: "PUT", body: new Uint8Array(body) });
  if (res.status !== 200) throw new Error(`PUT ${res.status} ${await res.text()}`);
}

/** Every asset and version the API lists, each one's bytes read back and compared with its md5 and size. */
async function verify(
  api: (h: Handler, m: string, p: string, params: Record<string, string>) => Promise<{ status: number; body: any; text: string }>,
  storage: ReturnType<typeof storageFor>,
  db: Parameters<typeof queryRows>[0],
) {
  const problems: string[] = [];
  let assets = 0;
  let versions = 0;
  let bytes = 0;
  const check = async (what: string, key: string | null, expected: { md5: string; size: number }) => {
    if (!key) return problems.push(`${what}: no storage id`);
    try {
      const got = Buffer.from(await new Response(await storage.read(key)).arrayBuffer());
      bytes += got.length;
      if (got.length !== expected.size || md5(got) !== expected.md5) problems.push(`${what}: ${got.length} bytes md5 ${md5(got)}, expected ${expected.size} bytes md5 ${expected.md5}`);
    } catch (err) {
      problems.push(`${what}: ${(err as Error).message}`);
    }
  };
  for (let page = 1; ; page++) {
    const list = await api(listRoute.GET as Handler, "GET", `/v1/${SLUG}/assets?page=${page}&per_page=100`, { slug: SLUG });
    if (list.status !== 200) throw new Error(`list ${list.status} ${list.text}`);
    for (const a of list.body.data as { token: string; md5: string; size: number; primary_storage_id: string }[]) {
      assets++;
      const one = await api(assetRoute.GET as Handler, "GET", `/v1/${SLUG}/assets/${a.token}`, { slug: SLUG, token: a.token });
      if (one.status !== 200) problems.push(`asset ${a.token}: GET ${one.status}`);
      await check(`asset ${a.token}`, a.primary_storage_id, a);
      for (let vp = 1; ; vp++) {
        const vs = await api(versionsRoute.GET as Handler, "GET", `/v1/${SLUG}/assets/${a.token}/versions?page=${vp}&per_page=100`, { slug: SLUG, token: a.token });
        if (vs.status !== 200) throw new Error(`versions ${vs.status} ${vs.text}`);
        for (const v of vs.body.data as { version_number: number; md5: string; size: number; primary_storage_id: string | null }[]) {
          versions++;
          await check(`asset ${a.token} v${v.version_number}`, v.primary_storage_id, v);
        }
        if (vp >= vs.body.pagy.total_pages) break;
      }
    }
    if (page >= list.body.pagy.total_pages) break;
  }
  const [counts] = await queryRows<{ assets: number; versions: number }>(db, sql`select (select count(*) from assets)::int as assets, (select count(*) from asset_versions)::int as versions`);
  return { assets, versions, bytes, problems, database: counts };
}

// Exits when done: the app keeps pooled connections and timers of its own that would hold the process.
main().then(
  () => process.exit(0),
  (err) => {
    console.error(`harness:failed ${(err as Error).stack}`);
    process.exit(1);
  },
);
