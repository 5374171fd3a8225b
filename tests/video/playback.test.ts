import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { chromium, type Browser } from "@playwright/test";
import { afterAll, beforeAll, expect, it } from "vitest";
import { serveMedia } from "../../lib/media/serve-media";
import { newApiToken, newBoard, newBoardToken, newWorkspace } from "../helpers/factories";
import { uploadAsset } from "../helpers/uploads";
import { makeClip, useVideoJobs, waitForAsset, type VideoDeps } from "./helpers";

/**
 * The stream plays in a real browser: Debian's Chromium (headless) runs hls.js on a page that holds
 * only a board access token, as browser code would, and the media route serves the master
 * playlist, variant playlists and segments from storage. Nothing comes from a CDN.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const HLS_JS = path.join(process.cwd(), "node_modules/hls.js/dist/hls.min.js");

let deps: VideoDeps;
let server: http.Server;
let origin: string;
let browser: Browser | null = null;

const page = (src: string) => `<!doctype html><html><body>
<video id="v" muted playsinline autoplay width="320"></video>
<script src="/hls.min.js"></script>
<script>
  window.state = { levels: 0, errors: [], supported: Hls.isSupported() };
  const video = document.getElementById("v");
  const hls = new Hls();
  hls.on(Hls.Events.MANIFEST_PARSED, (_, data) => { window.state.levels = data.levels.length; video.play().catch((e) => window.state.errors.push(String(e))); });
  hls.on(Hls.Events.ERROR, (_, data) => { if (data.fatal) window.state.errors.push(data.type + ":" + data.details); });
  hls.loadSource(${JSON.stringify(src)});
  hls.attachMedia(video);
</script></body></html>`;

beforeAll(async () => {
  deps = await useVideoJobs();
  server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname === "/hls.min.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(fs.readFileSync(HLS_JS));
    if (url.pathname === "/player") return res.writeHead(200, { "content-type": "text/html" }).end(page(url.searchParams.get("src")!));
    if (!url.pathname.startsWith("/media/")) return res.writeHead(404).end();
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
    const response = await serveMedia(deps, new Request(`${origin}${req.url}`, { headers, method: req.method }), url.pathname.slice("/media/".length).split("/"));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server.close(r));
});

it("plays the HLS stream with hls.js in headless Chromium past 2 s, authorised by a board access token", { timeout: 180_000 }, async () => {
  const ws = await newWorkspace(deps.db, { plan: "enterprise" });
  const token = await newApiToken(deps.db, ws);
  const board = await newBoard(deps.db, ws);
  const { asset } = await uploadAsset(ws, token, deps.store.s3, makeClip({ size: "640x360", seconds: 6 }), { media_type: "video/mp4", collection_token: board.token });
  await waitForAsset(deps.db, asset.id, (a) => a.encodeStatus === "ready", "the encode", 90_000);
  const boardToken = await newBoardToken(deps.db, ws, board.token);
  const src = `${origin}/media/${asset.token}/stream?token=${encodeURIComponent(boardToken)}`;

  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic", "--autoplay-policy=no-user-gesture-required"],
  });
  const tab = await browser.newPage();
  const requests: string[] = [];
  tab.on("response", (r) => requests.push(`${r.status()} ${new URL(r.url()).pathname}`));
  await tab.goto(`${origin}/player?src=${encodeURIComponent(src)}`);
  try {
    await tab.waitForFunction(() => (document.getElementById("v") as HTMLVideoElement).currentTime > 2, undefined, { timeout: 60_000, polling: 200 });
  } catch (err) {
    const state = await tab.evaluate(() => (window as unknown as { state: unknown }).state);
    throw new Error(`did not play: ${JSON.stringify(state)}\n${requests.join("\n")}\n${(err as Error).message}`);
  }
  const state = await tab.evaluate(() => ({ ...(window as unknown as { state: { levels: number; errors: string[] } }).state, time: (document.getElementById("v") as HTMLVideoElement).currentTime }));
  expect(state).toMatchObject({ levels: 2, errors: [] });
  expect(state.time).toBeGreaterThan(2);
  // Every file came from the media route and answered 200.
  const media = requests.filter((r) => r.includes("/media/"));
  expect(media.some((r) => r.endsWith("/stream"))).toBe(true);
  expect(media.some((r) => r.endsWith(".m4s"))).toBe(true);
  expect(media.filter((r) => !r.startsWith("200 "))).toEqual([]);
});
