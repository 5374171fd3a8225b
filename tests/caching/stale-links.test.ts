import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as downloadLinkRoute from "../../app/v1/[slug]/assets/[token]/download_link/route";
import { assets, type Asset, type Workspace } from "../../lib/db/schema";
import { jobRuns } from "../../lib/db/schema/jobs";
import { mediaLinker } from "../../lib/media/links";
import { serveMedia } from "../../lib/media/serve-media";
import { getSecret } from "../../lib/secrets";
import { call } from "../helpers/call-route";
import { newApiToken, newBoard, newBoardToken, newWorkspace, randomPng } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { revert, versions, writeBytes } from "../helpers/versions";
import { assetRow, getAsset, makeClip, useVideoJobs, type VideoDeps } from "../video/helpers";
import { startCachingProxy, type CachingProxy } from "./nginx";

/**
 * Contract §14: a cached response is never stale content. Easel's media route runs behind nginx's
 * proxy_cache (set up as a CDN: it keeps whatever Cache-Control allows, ignores no header). For a
 * PNG, a PDF and a video, every link the API hands out (display, thumbnails, stream, version
 * thumbnails, originals, each signed and with `?token=`) is fetched through the cache, and for the
 * stream every playlist and segment a player reaches from it. Then a version write, and later a
 * revert: each link fetched again through the cache must answer exactly what a fresh request to
 * Easel answers (status and bytes, for the stream file by file as a player walks it). And anything
 * any cache (a browser's private one too) was allowed to keep more than 60 s must still have the
 * bytes it had at its URL, or be gone: only content-named URLs may be kept.
 */

let deps: VideoDeps;
let server: http.Server;
let direct: string;
let proxy: CachingProxy;

beforeAll(async () => {
  deps = await useVideoJobs();
  server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (!url.pathname.startsWith("/media/")) return res.writeHead(404).end();
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const response = await serveMedia(deps, new Request(`${direct}${req.url}`, { headers, method: req.method }), url.pathname.slice("/media/".length).split("/"));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  direct = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy = await startCachingProxy(direct);
}, 120_000);

afterAll(async () => {
  await proxy?.stop();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

type Seen = { url: string; status: number; body: Buffer; cacheControl: string; cacheStatus: string | null };

async function get(origin: string, url: string): Promise<Seen> {
  const res = await fetch(`${origin}${url}`);
  return { url, status: res.status, body: Buffer.from(await res.arrayBuffer()), cacheControl: res.headers.get("cache-control") ?? "", cacheStatus: res.headers.get("x-cache-status") };
}

/** Whether some cache (shared or a browser's own) may keep this answer more than 60 s (contract §14). */
function keptLong(cacheControl: string): boolean {
  if (/\bimmutable\b/.test(cacheControl)) return true;
  const ages = [...cacheControl.matchAll(/\b(?:s-maxage|max-age)=(\d+)/g)].map((m) => Number(m[1]));
  return ages.some((a) => a > 60);
}

/** The URIs a playlist names (lines and URI="…" attributes), resolved against its own URL. */
function urisOf(playlist: string, base: string): string[] {
  const out: string[] = [];
  for (const raw of playlist.split("\n")) {
    const line = raw.trim();
    if (!line) continue;
    if (line.startsWith("#")) for (const m of line.matchAll(/URI="([^"]*)"/g)) out.push(m[1]);
    else out.push(line);
  }
  return out.map((u) => {
    const abs = new URL(u, `http://x${base}`);
    return `${abs.pathname}${abs.search}`;
  });
}

/** A link and, for a playlist, everything a player fetches from it (variant playlists, init segments, segments). */
async function walk(origin: string, url: string, depth = 0): Promise<Seen[]> {
  const seen = await get(origin, url);
  const out = [seen];
  if (seen.status === 200 && depth < 2 && new URL(url, "http://x").pathname.includes("/stream") && seen.body.subarray(0, 7).toString() === "#EXTM3U") {
    for (const child of urisOf(seen.body.toString(), url)) out.push(...(await walk(origin, child, depth + 1)));
  }
  return out;
}

const digest = (b: Buffer) => crypto.createHash("sha256").update(b).digest("hex").slice(0, 12);
const summary = (s: Seen) => `${s.status} ${digest(s.body)} ${s.url.split("?")[0]}`;

/** Every link the API hands out for the asset now: its JSON, its versions' JSON, its download links, and each path again with `?token=`. */
async function handedOut(ws: Workspace, token: string, assetToken: string, boardToken: string): Promise<string[]> {
  const asset = (await getAsset(ws, token, assetToken)).body.data;
  const list = (await versions(ws, token, assetToken)).body.data as { version_number: number; thumbnails: { url: string }[] }[];
  const link = mediaLinker("http://easel.test", await getSecret(deps.db, "media_url_key"), deps.clock());
  const download = async (query: string) => {
    const res = await call(downloadLinkRoute.GET, { path: `/v1/${ws.slug}/assets/${assetToken}/download_link${query}`, token, params: { slug: ws.slug, token: assetToken } });
    expect(res.status, res.text).toBe(200);
    return res.body.data.url as string;
  };
  const signed: string[] = [
    asset.display_url,
    ...(asset.stream_url ? [asset.stream_url] : []),
    ...asset.thumbnails.map((t: { url: string }) => t.url),
    await download(""),
    ...list.flatMap((v) => [...v.thumbnails.map((t) => t.url), link(assetToken, "display", { version: v.version_number })]),
    ...(await Promise.all(list.map((v) => download(`?version=${v.version_number}`)))),
  ];
  const urls = signed.map((u) => new URL(u));
  const withToken = urls.map((u) => `${u.pathname}?token=${encodeURIComponent(boardToken)}`);
  return [...urls.map((u) => `${u.pathname}${u.search}`), ...withToken];
}

/** Waits until the asset's jobs are done and `ready` holds for its row (thumbnails made, stream published…). */
async function settled(assetId: number, ready: (a: Asset) => boolean, what: string): Promise<Asset> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const row = await assetRow(deps.db, assetId);
    const runs = await deps.db.select({ status: jobRuns.status }).from(jobRuns);
    if (ready(row) && runs.every((r) => r.status === "completed" || r.status === "failed")) return row;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify({ encode: row.encodeStatus, stream: row.streamKey, thumbs: row.thumbnails.length })}`);
    // A read of the asset starts the encode of a video whose stream a revert cleared.
    if (row.mediaType.startsWith("video/") && row.encodeStatus === "none") await getAsset(ws, apiToken, row.token);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let ws: Workspace;
let apiToken: string;

/** Thumbnails of these bytes (named after the original's key) exist, or the type makes none. */
const processed = (a: Asset) => a.thumbnails.every((t) => t.key.startsWith(a.storageKey));

type Kind = { name: string; mediaType: string; make: (n: number) => Promise<Buffer>; ready: (a: Asset) => boolean };

const pdf = async (n: number) => Buffer.from(`%PDF-1.4\n% easel cache test ${n} ${crypto.randomBytes(8).toString("hex")}\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n`);

const KINDS: Kind[] = [
  { name: "a PNG", mediaType: "image/png", make: (n) => randomPng(64 + n * 8, 48), ready: (a) => processed(a) && a.thumbnails.length > 0 },
  { name: "a PDF", mediaType: "application/pdf", make: pdf, ready: processed },
  {
    name: "a video",
    mediaType: "video/mp4",
    // One size, so both encodes have the same rungs and files of the same names.
    make: async (n) => makeClip({ size: "320x180", seconds: n === 1 ? 2 : 3, audio: n === 1 }),
    ready: (a) => a.encodeStatus === "ready" && Boolean(a.streamKey?.startsWith(`${a.storageKey}.hls/`)),
  },
];

describe("links handed out before a version write or revert, through a caching proxy", () => {
  beforeAll(async () => {
    ws = await newWorkspace(deps.db, { plan: "enterprise" });
    apiToken = await newApiToken(deps.db, ws, { scopes: ["read", "write"] });
  });

  for (const kind of KINDS) {
    it(`serves ${kind.name}'s new bytes on every old link, and keeps only content-named answers`, { timeout: 600_000 }, async () => {
      const board = await newBoard(deps.db, ws);
      const boardToken = await newBoardToken(deps.db, ws, board.token, { expiresIn: 3600 });
      const { asset } = await uploadAsset(ws, apiToken, deps.store.s3, await kind.make(1), { media_type: kind.mediaType, collection_token: board.token });
      await settled(asset.id, kind.ready, "the upload's processing");

      // Before: every link through the cache, twice (a second use is what a cache answers itself).
      const links = await handedOut(ws, apiToken, asset.token, boardToken);
      const before: Seen[] = [];
      for (const link of links) before.push(...(await walk(proxy.origin, link)), ...(await walk(proxy.origin, link)));
      // Each handed-out link is revalidated on every use, and a revalidation is one 304 with no body.
      for (const link of links) {
        const res = await fetch(`${direct}${link}`);
        const etag = res.headers.get("etag") ?? "";
        await res.arrayBuffer();
        expect([res.status, res.headers.get("cache-control")], link.split("?")[0]).toEqual([200, "no-cache"]);
        expect(etag, `${link.split("?")[0]}: a strong ETag`).toMatch(/^"[^"]+"$/);
        const again = await fetch(`${direct}${link}`, { headers: { "if-none-match": etag } });
        expect([again.status, (await again.arrayBuffer()).byteLength], `${link.split("?")[0]} revalidated`).toEqual([304, 0]);
      }
      const firstDisplay = before.find((s) => s.url === links[0])!;
      expect(firstDisplay.status, firstDisplay.body.toString().slice(0, 300)).toBe(200);

      const checkAfter = async (what: string, earlier: Seen[], previousDisplay: Buffer) => {
        const display = await get(direct, links[0]);
        expect(digest(display.body), `${what}: the display link serves other bytes than before`).not.toBe(digest(previousDisplay));
        for (const link of links) {
          const cached = await walk(proxy.origin, link);
          const fresh = await walk(direct, link);
          expect(cached.map(summary), `${what}: ${link.split("?")[0]} through the cache`).toEqual(fresh.map(summary));
        }
        // Whatever a cache was allowed to keep long is still what its URL serves, or the URL is gone.
        const reused = new Set<string>();
        for (const s of earlier.filter((e) => e.status === 200 && keptLong(e.cacheControl))) {
          const now = await get(direct, s.url);
          if (now.status === 200 && !now.body.equals(s.body)) reused.add(`${s.url.split("?")[0]} (${s.cacheControl})`);
        }
        expect([...reused], `${what}: URLs kept by caches > 60 s that now serve other bytes`).toEqual([]);
      };

      // A version write with new bytes.
      const written = await writeBytes(ws, apiToken, deps.store.s3, asset.token, await kind.make(2), { media_type: kind.mediaType });
      expect(written.status, written.text).toBe(200);
      await settled(asset.id, (a) => a.storageKey !== asset.primary_storage_id && kind.ready(a), "the version's processing");
      await checkAfter("after a version write", before, firstDisplay.body);

      // A revert to the first bytes, with links handed out after the write also in play.
      const between = [...before];
      for (const link of await handedOut(ws, apiToken, asset.token, boardToken)) between.push(...(await walk(proxy.origin, link)));
      const writtenDisplay = (await get(direct, links[0])).body;
      const reverted = await revert(ws, apiToken, asset.token, { version_number: 1 });
      expect(reverted.status, reverted.text).toBe(200);
      await settled(asset.id, (a) => a.storageKey === asset.primary_storage_id && kind.ready(a), "the revert's processing");
      await checkAfter("after a revert", between, writtenDisplay);
      expect(digest((await get(direct, links[0])).body), "the revert brings back the first display").toBe(digest(firstDisplay.body));

      if (kind.mediaType.startsWith("video/")) {
        // The cache really keeps things: a second walk of the stream is answered from it, segment by segment.
        const stream = links.find((l) => l.includes("/stream"))!;
        await walk(proxy.origin, stream);
        const again = await walk(proxy.origin, stream);
        const hits = again.filter((s) => s.cacheStatus === "HIT").map((s) => s.url.split("?")[0]);
        expect(hits.length, "segments answered by the cache").toBeGreaterThan(0);
        expect(hits.every((u) => /\.(m4s|mp4)$/.test(u))).toBe(true);
      }
      const row = (await deps.db.select().from(assets).where(eq(assets.id, asset.id)))[0];
      expect(row.storageKey).toBe(asset.primary_storage_id);
    });
  }
});
