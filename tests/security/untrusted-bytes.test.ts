import http from "node:http";
import { GetObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { eq } from "drizzle-orm";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import * as mediaRoute from "../../app/media/[...path]/route";
import * as assetRoute from "../../app/v1/[slug]/assets/[token]/route";
import { assets, type Board, type Workspace } from "../../lib/db/schema";
import { setDeps, type Deps } from "../../lib/deps";
import { resetEnvCache } from "../../lib/env";
import { recordingJobSender } from "../../lib/jobs/send";
import { processAsset } from "../../lib/media/process-asset";
import { serveGcs, serveS3 } from "../../lib/objectstore";
import { EMBEDDED_BUCKET } from "../../lib/objectstore/identity";
import { GCS_MOUNT_PATH, S3_MOUNT_PATH } from "../../lib/objectstore/mounts";
import { listen, type RunningServer } from "../../lib/objectstore/testing/node-server";
import { storageFor } from "../../lib/storage";
import { embeddedGcsSigner, signGcsUrl } from "../../lib/storage/gcs/signer";
import { embeddedS3Settings, makeS3Client } from "../../lib/storage/s3/config";
import { workspaceStorage } from "../../lib/storage/workspace-storage";
import { call } from "../helpers/call-route";
import { testDb } from "../helpers/db";
import { testClock } from "../helpers/deps";
import { MiB, newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";
import { complete, prepare } from "../helpers/uploads";

// Contract §12, "untrusted bytes never run on Easel's origin": files a browser could run are
// uploaded through the real API into the embedded store (both protocols), and every URL the API
// hands out for them, plus the store's own signed GET of the key, is fetched over HTTP from a
// loopback server answering /media and /storage as Easel's server does.

const CSP = "default-src 'none'; sandbox";
const time = testClock();
let deps: Deps;
let server: RunningServer;
let ws: { s3: Workspace; gcs: Workspace };
let apiToken: { s3: string; gcs: string };
let board: { s3: Board; gcs: Board };

/** Easel's routes for stored bytes, on a loopback port: the store's two endpoints and /media. */
async function answer(req: Request): Promise<Response> {
  const path = new URL(req.url).pathname;
  if (path.startsWith(`${S3_MOUNT_PATH}/`) || path === S3_MOUNT_PATH) return serveS3(req);
  if (path.startsWith(`${GCS_MOUNT_PATH}/`) || path === GCS_MOUNT_PATH) return serveGcs(req);
  if (path.startsWith("/media/")) return mediaRoute.GET(req, { params: Promise.resolve({ path: path.slice("/media/".length).split("/").map(decodeURIComponent) }) });
  return new Response("not here", { status: 404 });
}

function useEnv(vars: Record<string, string>) {
  vi.unstubAllEnvs();
  for (const [name, value] of Object.entries(vars)) vi.stubEnv(name, value);
  resetEnvCache();
}

beforeAll(async () => {
  const { db } = await testDb();
  deps = { db, clock: time.clock, jobs: recordingJobSender(), storage: (kind, baseUrl) => storageFor(kind, { baseUrl, db, clock: time.clock }) };
  setDeps(deps);
  server = await listen(answer);
  useEnv({ EASEL_PUBLIC_URL: server.origin });
  ws = { s3: await newWorkspace(db, { storage: "s3" }), gcs: await newWorkspace(db, { storage: "gcs" }) };
  apiToken = { s3: await newApiToken(db, ws.s3), gcs: await newApiToken(db, ws.gcs) };
  board = { s3: await newBoard(db, ws.s3), gcs: await newBoard(db, ws.gcs) };
});

afterAll(async () => {
  vi.unstubAllEnvs();
  resetEnvCache();
  setDeps(null);
  await server?.close();
});

type Kind = "s3" | "gcs";
type Prepared = { upload_url: string; multipart_upload_id: string | null; part_size: number | null; part_urls: string[] | null; signed_storage_id: string };

/** Sends the bytes where a client would: one PUT, presigned parts, or a resumable session (start, then one PUT). */
async function sendBytes(prep: Prepared, bytes: Buffer, headers: Record<string, string> = {}) {
  if (prep.part_urls && prep.part_size) {
    for (const [i, url] of prep.part_urls.entries()) {
      const put = await fetch(url, { method: "PUT", body: new Uint8Array(bytes.subarray(i * prep.part_size, (i + 1) * prep.part_size)) });
      expect(put.status, await put.text()).toBe(200);
    }
    return;
  }
  if (new URL(prep.upload_url).pathname.startsWith(GCS_MOUNT_PATH)) {
    const start = await fetch(prep.upload_url, { method: "POST", headers: { "x-goog-resumable": "start", ...headers } });
    expect(start.status, await start.text()).toBe(201);
    const put = await fetch(start.headers.get("location")!, { method: "PUT", body: new Uint8Array(bytes) });
    expect(put.status, await put.text()).toBe(200);
    return;
  }
  const put = await fetch(prep.upload_url, { method: "PUT", body: new Uint8Array(bytes), headers });
  expect(put.status, await put.text()).toBe(200);
}

/** upload_prepare → bytes → upload_complete through the API, onto the kind's board. */
async function upload(kind: Kind, file: { name: string; type: string; bytes: Buffer; putHeaders?: Record<string, string> }) {
  const p = await prepare(ws[kind], apiToken[kind], { title: file.name, media_type: file.type, size: file.bytes.length, collection_token: board[kind].token });
  expect(p.status, p.text).toBe(200);
  await sendBytes(p.body.data, file.bytes, file.putHeaders ?? { "content-type": file.type });
  const c = await complete(ws[kind], apiToken[kind], { signed_storage_id: p.body.data.signed_storage_id, multipart_upload_id: p.body.data.multipart_upload_id ?? undefined });
  expect(c.status, c.text).toBe(200);
  return { asset: c.body.data, prep: p.body.data as Prepared };
}

async function getAsset(kind: Kind, token: string) {
  const res = await call(assetRoute.GET, { path: `/v1/${ws[kind].slug}/assets/${token}`, token: apiToken[kind], params: { slug: ws[kind].slug, token } });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

async function processed(kind: Kind, assetToken: string) {
  const [row] = await deps.db.select().from(assets).where(eq(assets.token, assetToken));
  expect((await processAsset(deps, workspaceStorage(deps, ws[kind]), row.id)).status).toBe("processed");
  return getAsset(kind, assetToken);
}

/** A signed GET of the key on the embedded store itself, optionally asking for response-* overrides. */
async function storeUrl(kind: Kind, key: string, overrides: { type?: string; disposition?: string } = {}): Promise<string> {
  const now = time.clock();
  if (kind === "s3") {
    const client = makeS3Client(await embeddedS3Settings(server.origin, deps.db));
    const command = new GetObjectCommand({ Bucket: EMBEDDED_BUCKET, Key: key, ResponseContentType: overrides.type, ResponseContentDisposition: overrides.disposition });
    return getSignedUrl(client, command, { expiresIn: 300, signingDate: now });
  }
  const signer = await embeddedGcsSigner(server.origin, deps.db);
  return signGcsUrl(signer, key, { action: "read", responseType: overrides.type, responseDisposition: overrides.disposition }, now, new Date(now.getTime() + 300_000));
}

type Served = { status: number; type: string | null; disposition: string | null; nosniff: string | null; csp: string | null; body: Buffer };

async function fetchBytes(url: string, method: "GET" | "HEAD" = "GET"): Promise<Served> {
  const res = await fetch(url, { method });
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    disposition: res.headers.get("content-disposition"),
    nosniff: res.headers.get("x-content-type-options"),
    csp: res.headers.get("content-security-policy"),
    body: Buffer.from(await res.arrayBuffer()),
  };
}

/**
 * The protective headers and the disposition the policy decides, on GET and (media links; a
 * store URL is signed for GET only) HEAD.
 */
async function expectServed(url: string, want: { type: string; inline: boolean }) {
  const methods = new URL(url).pathname.startsWith("/media/") ? (["GET", "HEAD"] as const) : (["GET"] as const);
  for (const method of methods) {
    const got = await fetchBytes(url, method);
    expect({ url, method, status: got.status, type: got.type, disposition: got.disposition?.split(";")[0], nosniff: got.nosniff, csp: got.csp }).toEqual({
      url,
      method,
      status: 200,
      type: want.type,
      disposition: want.inline ? "inline" : "attachment",
      nosniff: "nosniff",
      csp: CSP,
    });
  }
  return fetchBytes(url);
}

const probe = "<script>document.title='pwned';fetch('/api/admin/workspaces')</script>";
const FILES = [
  { name: "page.html", type: "text/html", bytes: Buffer.from(`<!doctype html><html><head><title>ok</title></head><body>${probe}</body></html>`), sent: "text/html" },
  { name: "page.xhtml", type: "application/xhtml+xml", bytes: Buffer.from(`<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>ok</title></head><body>${probe}</body></html>`), sent: "application/xhtml+xml" },
  {
    name: "data.xml",
    type: "application/xml",
    bytes: Buffer.from(
      `<?xml version="1.0"?><?xml-stylesheet type="text/xsl" href="#style"?><doc><xsl:stylesheet id="style" version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><xsl:template match="/"><html xmlns="http://www.w3.org/1999/xhtml">${probe}</html></xsl:template></xsl:stylesheet></doc>`,
    ),
    sent: "application/xml",
  },
  { name: "app.js", type: "text/javascript", bytes: Buffer.from("document.title='pwned';fetch('/api/admin/workspaces');"), sent: "application/octet-stream" },
  { name: "fake.png", type: "image/png", bytes: Buffer.from(`<!doctype html><html>${probe}</html>`), sent: "image/png", inline: true },
];
const SVG = Buffer.from(
  `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200" onload="document.title='pwned'"><script>document.title='pwned'</script><rect width="400" height="200" fill="#c00"/></svg>`,
);

describe.each(["s3", "gcs"] as const)("stored bytes on %s", (kind) => {
  it.each(FILES)("$name: display, original by board token and the store's own GET go out with nosniff, the CSP, and attachment unless allow-listed", async (file) => {
    const { asset } = await upload(kind, file);
    const after = await processed(kind, asset.token);
    expect(after.thumbnails).toEqual([]); // nothing a browser would run is rendered to a picture
    const want = { type: file.sent, inline: file.inline ?? false };
    const display = await expectServed(after.display_url, want);
    expect(display.body.equals(file.bytes)).toBe(true);
    const boardToken = await newBoardToken(deps.db, ws[kind], board[kind].token);
    await expectServed(`${server.origin}/media/${asset.token}/original?token=${boardToken}`, want);
    // The store replays the type the uploader sent with its PUT (or start), through the same policy.
    const stored = await expectServed(await storeUrl(kind, asset.primary_storage_id), want);
    expect(stored.body.equals(file.bytes)).toBe(true);
  });

  it("a signed response-content-type=text/html (and inline disposition) on a store GET still goes out as an attachment", async () => {
    const { asset } = await upload(kind, FILES[4]);
    const url = await storeUrl(kind, asset.primary_storage_id, { type: "text/html", disposition: "inline; filename=\"x.html\"" });
    const got = await expectServed(url, { type: "text/html", inline: false });
    expect(got.disposition).toBe('attachment; filename="x.html"');
    // A smuggled list of types is not sent as is.
    await expectServed(await storeUrl(kind, asset.primary_storage_id, { type: "text/html, image/png" }), { type: "application/octet-stream", inline: false });
  });

  it("an uploader's own Content-Type and Content-Disposition: inline on a PNG asset are not replayed inline", async () => {
    const { asset } = await upload(kind, { name: "sneaky.png", type: "image/png", bytes: FILES[4].bytes, putHeaders: { "content-type": "text/html", "content-disposition": "inline" } });
    await expectServed(await storeUrl(kind, asset.primary_storage_id), { type: "text/html", inline: false });
    // Easel's own link serves the asset's type, not the uploader's header.
    await expectServed(asset.display_url, { type: "image/png", inline: true });
  });

  it("an SVG with <script> and onload: display is an attachment until processed, then every thumbnail and display is a JPEG served inline", async () => {
    const { asset } = await upload(kind, { name: "drawing.svg", type: "image/svg+xml", bytes: SVG });
    expect(asset.thumbnails).toEqual([]);
    await expectServed(asset.display_url, { type: "image/svg+xml", inline: false });
    const after = await processed(kind, asset.token);
    expect(after.media_type).toBe("image/svg+xml");
    expect(after.thumbnails.map((t: { size: string }) => t.size).sort()).toEqual(["large", "medium", "small"]);
    for (const link of [after.display_url, ...after.thumbnails.map((t: { url: string }) => t.url)]) {
      const got = await expectServed(link, { type: "image/jpeg", inline: true });
      const meta = await sharp(got.body).metadata();
      expect(meta.format).toBe("jpeg");
      // Rasterised: the red rectangle, no script.
      const { data } = await sharp(got.body).raw().toBuffer({ resolveWithObject: true });
      expect([data[0] > 150, data[1] < 80, data[2] < 80]).toEqual([true, true, true]);
    }
    const boardToken = await newBoardToken(deps.db, ws[kind], board[kind].token);
    await expectServed(`${server.origin}/media/${asset.token}/original?token=${boardToken}`, { type: "image/svg+xml", inline: false });
    await expectServed(await storeUrl(kind, asset.primary_storage_id), { type: "image/svg+xml", inline: false });
  });
});

describe("HLS files", () => {
  it("playlists and segments go out inline with nosniff and the CSP", async () => {
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: "#123456" } }).png().toBuffer();
    const { asset } = await upload("s3", { name: "clip", type: "image/png", bytes: png });
    // A published stream, written where an encode writes one (the encode itself is tested in tests/video).
    const storage = workspaceStorage(deps, ws.s3);
    const dir = `${asset.primary_storage_id}.hls/run1`;
    await storage.write(`${dir}/master.m3u8`, Buffer.from("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=100000\n360p/index.m3u8\n"), "application/vnd.apple.mpegurl");
    await storage.write(`${dir}/360p/index.m3u8`, Buffer.from("#EXTM3U\n#EXT-X-MAP:URI=\"init.mp4\"\n#EXTINF:4,\nseg_00000.m4s\n#EXT-X-ENDLIST\n"), "application/vnd.apple.mpegurl");
    await storage.write(`${dir}/360p/init.mp4`, Buffer.from("init"), "text/html");
    await storage.write(`${dir}/360p/seg_00000.m4s`, Buffer.from("<html><script>1</script></html>"), "text/html");
    await deps.db.update(assets).set({ streamKey: `${dir}/master.m3u8`, encodeStatus: "ready" }).where(eq(assets.token, asset.token));
    const boardToken = await newBoardToken(deps.db, ws.s3, board.s3.token);
    const base = `${server.origin}/media/${asset.token}/stream`;
    const master = await expectServed(`${base}?token=${boardToken}`, { type: "application/vnd.apple.mpegurl", inline: true });
    expect(master.body.toString()).toContain(`stream/run1/360p/index.m3u8?token=${boardToken}`);
    // The run's URLs (what the master names) and the older run-less ones alike.
    for (const folder of [`${base}/run1/360p`, `${base}/360p`]) {
      await expectServed(`${folder}/index.m3u8?token=${boardToken}`, { type: "application/vnd.apple.mpegurl", inline: true });
      // Segment types come from the file name, never from what was stored with them.
      await expectServed(`${folder}/seg_00000.m4s?token=${boardToken}`, { type: "video/iso.segment", inline: true });
      await expectServed(`${folder}/init.mp4?token=${boardToken}`, { type: "video/mp4", inline: true });
    }
  });
});

/** A request to the loopback server carrying another Host, as a proxy for the media origin forwards it. */
function viaHost(url: string, host: string, init: { method: string; headers?: Record<string, string>; body?: Buffer }): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const target = new URL(url);
  const local = new URL(server.origin);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: local.hostname, port: local.port, method: init.method, path: `${target.pathname}${target.search}`, headers: { ...init.headers, host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

describe("EASEL_MEDIA_ORIGIN", () => {
  afterAll(() => useEnv({ EASEL_PUBLIC_URL: server.origin }));

  it("moves upload_url, part_urls, display_url and thumbnail urls to the media origin, and uploads there still verify (s3, single and multipart)", async () => {
    // Another origin (a second port) answered by the same routes, data and store: requests to it carry its Host.
    const media = await listen(answer);
    onTestFinished(() => media.close());
    const mediaOrigin = media.origin;
    useEnv({ EASEL_PUBLIC_URL: server.origin, EASEL_MEDIA_ORIGIN: mediaOrigin });
    const png = await sharp({ create: { width: 600, height: 300, channels: 3, background: "#208040" } }).png().toBuffer();
    const single = await upload("s3", { name: "single.png", type: "image/png", bytes: png });
    expect(new URL(single.prep.upload_url).origin).toBe(mediaOrigin);
    const after = await processed("s3", single.asset.token);
    expect(new URL(after.display_url).origin).toBe(mediaOrigin);
    expect(after.thumbnails).toHaveLength(3);
    for (const t of after.thumbnails) expect(new URL(t.url).origin).toBe(mediaOrigin);
    await expectServed(after.display_url, { type: "image/jpeg", inline: true });

    const big = Buffer.concat([png, Buffer.alloc(9 * MiB, 7)]);
    const multi = await upload("s3", { name: "big.png", type: "image/png", bytes: big });
    expect(multi.prep.part_urls).toHaveLength(2);
    for (const url of [multi.prep.upload_url, ...multi.prep.part_urls!]) expect(new URL(url).origin).toBe(mediaOrigin);
    expect(multi.asset.size).toBe(big.length);
  });

  it("a presigned S3 PUT on the media origin verifies when it arrives with that origin's Host, and not with another", async () => {
    // Signed offline as the driver signs (the driver itself would also call the store on that origin).
    const mediaHost = `media.easel.test:${new URL(server.origin).port}`;
    const client = makeS3Client(await embeddedS3Settings(`http://${mediaHost}`, deps.db));
    const url = await getSignedUrl(client, new PutObjectCommand({ Bucket: EMBEDDED_BUCKET, Key: `ws/${ws.s3.id}/proxied.bin` }), { expiresIn: 300, signingDate: time.clock() });
    expect(new URL(url).host).toBe(mediaHost);
    const wrongHost = await viaHost(url, new URL(server.origin).host, { method: "PUT", body: Buffer.from("abcd") });
    expect([wrongHost.status, wrongHost.body]).toEqual([403, expect.stringContaining("SignatureDoesNotMatch")]);
    const put = await viaHost(url, mediaHost, { method: "PUT", body: Buffer.from("abcd") });
    expect(put.status, put.body).toBe(200);
  });

  it("a GCS resumable upload through the media origin's Host completes, and the session it opens stays on that origin", async () => {
    const mediaHost = `media.easel.test:${new URL(server.origin).port}`;
    useEnv({ EASEL_PUBLIC_URL: server.origin, EASEL_MEDIA_ORIGIN: `http://${mediaHost}` });
    const png = await sharp({ create: { width: 40, height: 20, channels: 3, background: "#804020" } }).png().toBuffer();
    const p = await prepare(ws.gcs, apiToken.gcs, { title: "proxied", media_type: "image/png", size: png.length, collection_token: board.gcs.token });
    expect(p.status, p.text).toBe(200);
    expect(new URL(p.body.data.upload_url).host).toBe(mediaHost);
    const start = await viaHost(p.body.data.upload_url, mediaHost, { method: "POST", headers: { "x-goog-resumable": "start" } });
    expect(start.status, start.body).toBe(201);
    const session = String(start.headers.location);
    expect(new URL(session).host).toBe(mediaHost);
    const put = await viaHost(session, mediaHost, { method: "PUT", body: png });
    expect(put.status, put.body).toBe(200);
    const c = await complete(ws.gcs, apiToken.gcs, { signed_storage_id: p.body.data.signed_storage_id });
    expect(c.status, c.text).toBe(200);
    expect(new URL(c.body.data.display_url).host).toBe(mediaHost);
    const display = await viaHost(c.body.data.display_url, mediaHost, { method: "GET" });
    expect([display.status, display.headers["content-type"], display.headers["x-content-type-options"]]).toEqual([200, "image/png", "nosniff"]);
  });
});
