import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { apiClient } from "../support/api";
import { seed } from "../support/env";
import { writeShortVideo } from "../support/files";

// Contract §14 in a browser: Chromium keeps whatever its HTTP cache is allowed to keep, and one
// tab opens the links the API handed out before and after a version write, never reloading.
// Each must then show the new bytes, exactly what a request with no cache gets. (Plain `test`: a
// media document's sandbox policy blocks the image viewer's own inline styles, which is intended.)
const slug = seed.workspaces.s3;
const digest = (b: Buffer) => crypto.createHash("sha256").update(b).digest("hex");

/** What a client with no cache at all gets for a URL. */
async function fresh(request: APIRequestContext, url: string): Promise<string> {
  const res = await request.get(url, { headers: { "cache-control": "no-cache" } });
  expect(res.status(), url).toBe(200);
  return digest(await res.body());
}

/** The digest of what a request with no cache gets now, or `HTTP <status>` (a thumbnail being made answers 404). */
async function current(request: APIRequestContext, url: string): Promise<string> {
  const res = await request.get(url, { headers: { "cache-control": "no-cache" } });
  return res.status() === 200 ? digest(await res.body()) : `HTTP ${res.status()}`;
}

/** A navigation of the tab to the link (about:blank first, so it is a new navigation, never a reload). */
async function open(page: Page, url: string): Promise<string> {
  await page.goto("about:blank");
  const res = await page.goto(url);
  expect(res?.status(), url).toBe(200);
  return digest(await res!.body());
}

/** The tab's own fetch (HTTP cache on) of a stream: master, variant playlists, init segments and segments, by URL. */
async function walkInTab(page: Page, master: string): Promise<Record<string, string>> {
  const bodies = await page.evaluate(async (start) => {
    const out: Record<string, string> = {};
    const hex = async (buf: ArrayBuffer) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", buf))].map((b) => b.toString(16).padStart(2, "0")).join("");
    const visit = async (url: string, depth: number): Promise<void> => {
      const res = await fetch(url);
      const buf = await res.arrayBuffer();
      out[url] = `${res.status} ${await hex(buf)}`;
      const text = new TextDecoder().decode(buf);
      if (depth > 1 || !text.startsWith("#EXTM3U")) return;
      for (const line of text.split("\n").map((l) => l.trim())) {
        const uris = line.startsWith("#") ? [...line.matchAll(/URI="([^"]*)"/g)].map((m) => m[1]) : line ? [line] : [];
        for (const uri of uris) await visit(new URL(uri, url).href, depth + 1);
      }
    };
    await visit(start, 0);
    return out;
  }, master);
  return bodies;
}

/** The tab's own fetch of a link (HTTP cache on), from a page of Easel's: a PDF would otherwise be a download. */
async function fetchInTab(page: Page, url: string): Promise<string> {
  return page.evaluate(async (u) => {
    const res = await fetch(u);
    const buf = await res.arrayBuffer();
    return [...new Uint8Array(await crypto.subtle.digest("SHA-256", buf))].map((b) => b.toString(16).padStart(2, "0")).join("");
  }, url);
}

type LinkedAsset = { display_url: string; thumbnails: { url: string }[] };

/**
 * Every handed-out link, opened in one tab before a version write, after it, and after a revert to
 * version 1. Each link must serve one content per version: an image's display link changes twice
 * after a write (the original, then its preview), which a check between the two would race, so the
 * image is checked through its thumbnails and the display link through a bare PDF (no preview);
 * nginx's test covers every link of each kind.
 */
async function followsWritesAndReverts(page: Page, request: APIRequestContext, files: [string, string], read: (page: Page, url: string) => Promise<string>, title: string, linksOf: (asset: LinkedAsset) => string[]) {
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard(`Cache check, ${title}`);
  const asset = await api.upload(files[0], { board: board.token, title });
  // The links once there are some (an image's thumbnails are made after its upload).
  let links: string[] = [];
  await expect.poll(async () => (links = linksOf((await api.asset(asset.token)) as LinkedAsset)).length, { timeout: 30_000 }).toBeGreaterThan(0);

  const first: string[] = [];
  for (const link of links) first.push(await read(page, link));
  // Opened again before any write: the same bytes (from the cache or a 304).
  for (const [i, link] of links.entries()) expect(await read(page, link)).toBe(first[i]);

  // Each check waits until a request with no cache gets the new head (thumbnails are made after
  // the write), then asks the tab, which may keep what it was allowed to keep.
  await api.newVersion(asset.token, files[1]);
  const written: string[] = [];
  for (const [i, link] of links.entries()) {
    await expect.poll(async () => { const now = await current(request, link); return !now.startsWith("HTTP") && now !== first[i]; }, { timeout: 30_000 }).toBe(true);
    const now = await read(page, link);
    expect(now, `${new URL(link).pathname} after the version write`).toBe(await fresh(request, link));
    written.push(now);
  }

  await api.revert(asset.token, 1);
  for (const [i, link] of links.entries()) {
    await expect.poll(() => current(request, link), { timeout: 30_000 }).toBe(first[i]);
    const now = await read(page, link);
    expect(now, `${new URL(link).pathname} after the revert`).toBe(first[i]);
    expect(now).not.toBe(written[i]);
  }
}

test("thumbnail links opened in one tab around a version write and a revert show the head's bytes (image)", async ({ page, request }) => {
  test.setTimeout(150_000);
  await followsWritesAndReverts(page, request, [seed.files.image, seed.files.imageB], open, "Cached sunrise", (a) => a.thumbnails.map((t) => t.url));
});

test("links fetched in one tab around a version write and a revert show the head's bytes (PDF)", async ({ page, request }, testInfo) => {
  test.setTimeout(150_000);
  const pdf = (n: number) => {
    const file = testInfo.outputPath(`doc-${n}.pdf`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `%PDF-1.4\n% easel cache check ${n} ${crypto.randomBytes(8).toString("hex")}\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n`);
    return file;
  };
  await page.goto("/login");
  await followsWritesAndReverts(page, request, [pdf(1), pdf(2)], fetchInTab, "Cached document", (a) => [a.display_url]);
});

test("a stream fetched in one tab around a version write plays the new encode's files (video)", async ({ page, request }, testInfo) => {
  test.setTimeout(300_000);
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Cache check, video");
  const first = writeShortVideo(testInfo.outputPath("first.mp4"));
  const asset = await api.upload(first, { board: board.token, title: "Cached clip" });
  const streamUrl = async () => {
    let url: string | null = null;
    await expect.poll(async () => (url = (await api.asset(asset.token)).stream_url), { timeout: 180_000 }).toBeTruthy();
    return url as unknown as string;
  };
  const link = await streamUrl();

  // The tab sits on a page of Easel's (whose policy allows fetching its own origin) and fetches the
  // stream as a player would, before and after the write, without navigating.
  await page.goto("/login");
  const before = await walkInTab(page, link);
  expect(Object.keys(before).length).toBeGreaterThan(3);
  expect(await walkInTab(page, link)).toEqual(before);

  const second = path.join(path.dirname(first), "second.mp4");
  execFileSync(process.env.FFMPEG_PATH ?? "ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=640x360:rate=25:duration=2", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", second]);
  await api.newVersion(asset.token, second);
  expect(await streamUrl()).toBe(link);

  const after = await walkInTab(page, link);
  const direct: Record<string, string> = {};
  for (const url of Object.keys(after)) {
    const res = await request.get(url, { headers: { "cache-control": "no-cache" } });
    direct[url] = `${res.status()} ${digest(await res.body())}`;
  }
  expect(after).toEqual(direct);
  expect(after[link]).not.toBe(before[link]);
  // No file of the new stream is one the tab kept from the old one.
  for (const [url, seen] of Object.entries(after)) if (url in before && url !== link) expect(seen, url).toBe(before[url]);
});
