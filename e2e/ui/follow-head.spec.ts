import { execFileSync } from "node:child_process";
import path from "node:path";
import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { apiClient } from "../support/api";
import { dataDir, seed } from "../support/env";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

/**
 * Open pages follow the head (contract §14): an asset page left open shows a version written or
 * reverted elsewhere (here: through the API) within 2 s, in its picture or player, its details
 * and its timeline, without reloading.
 */
const slug = seed.workspaces.s3;
const LIVE_MS = 2_000;

async function revert(request: APIRequestContext, token: string, version: number, comment?: string) {
  const res = await request.post(`/v1/${slug}/assets/${token}/revert`, {
    headers: { authorization: `Bearer ${seed.tokens.s3}` },
    data: { version_number: version, ...(comment ? { comment } : {}) },
  });
  expect(res.ok(), `revert: HTTP ${res.status()} ${await res.text()}`).toBeTruthy();
  return (await res.json()) as { head_version_number: number; data: { md5: string } };
}

/** Opens the asset page once its live stream is up; the returned check says the page never reloaded. */
async function openAssetPage(page: Page, token: string) {
  const streamed = page.waitForResponse((r) => new URL(r.url()).pathname === `/api/live/${slug}` && r.status() === 200);
  await page.goto(`/w/${slug}/assets/${token}`);
  await streamed;
  await page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
  return async () => expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument), "the page was reloaded").toBe(true);
}

const detail = (page: Page, term: string): Locator => page.locator("dt", { hasText: new RegExp(`^${term}$`) }).locator("xpath=following-sibling::dd[1]");

/** The head's picture shows `md5`'s content: its link is keyed by it, and it has loaded. */
async function expectPictureOf(page: Page, title: string, md5: string) {
  const picture = page.getByRole("img", { name: title, exact: true });
  await expect(picture).toHaveAttribute("src", new RegExp(`[?&]v=${md5.slice(0, 12)}`), { timeout: LIVE_MS });
  await expect.poll(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), { timeout: LIVE_MS }).toBe(true);
}

test("an open image page shows a version written and a revert made through the API within 2 s", async ({ page, request }, testInfo) => {
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Follow the head");
  const title = "Head follower";
  const first = await api.upload(seed.files.image, { board: board.token, title });
  const sameDocument = await openAssetPage(page, first.token);
  await expectPictureOf(page, title, first.md5);
  await expect(detail(page, "MD5")).toHaveText(first.md5);

  // ---- a version written elsewhere
  const written = await api.newVersion(first.token, seed.files.imageB, "from the build script");
  const second = written.data as { md5: string; size: number };
  expect(second.md5).not.toBe(first.md5);
  await expectPictureOf(page, title, second.md5);
  await expect(detail(page, "MD5")).toHaveText(second.md5, { timeout: LIVE_MS });
  await expect(page.getByText(`head v${written.data.head_version_number}`, { exact: true })).toBeVisible({ timeout: LIVE_MS });
  const stored = page.getByTestId("version-1");
  await expect(stored).toContainText("from the build script", { timeout: LIVE_MS });
  // The timeline names the token that wrote it, not its raw prefix.
  await expect(stored.getByTestId("version-author")).toHaveText(" · by API token “e2e”");
  await snap(page, testInfo, "head-after-api-write");

  // ---- a revert made elsewhere
  const reverted = await revert(request, first.token, 1, "back to the first");
  await expectPictureOf(page, title, first.md5);
  await expect(detail(page, "MD5")).toHaveText(first.md5, { timeout: LIVE_MS });
  await expect(page.getByTestId(`version-${reverted.head_version_number - 1}`)).toContainText("back to the first", { timeout: LIVE_MS });
  await expect(page.getByTestId(`version-${reverted.head_version_number}`)).toContainText("head · current", { timeout: LIVE_MS });
  await snap(page, testInfo, "head-after-api-revert");
  await sameDocument();
});

/** A 10 s clip of its own (640×360, well under one part): a different picture from the seed's. */
function writeClip(name: string, source: string): string {
  const file = path.join(dataDir, "fixtures", name);
  execFileSync(process.env.FFMPEG_PATH ?? "ffmpeg", [
    "-hide_banner", "-loglevel", "error", "-y",
    "-f", "lavfi", "-i", `${source}=size=640x360:rate=25`,
    "-f", "lavfi", "-i", "sine=frequency=330:sample_rate=44100",
    "-t", "10", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k", file,
  ]);
  return file;
}

test("a playing video switches to the new head's stream without a page reload, at the same position", async ({ page, request }, testInfo) => {
  test.setTimeout(300_000);
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Follow the head: video");
  const first = await api.upload(writeClip("head-a.mp4", "testsrc"), { board: board.token, title: "Reel" });
  await expect.poll(async () => (await api.asset(first.token)).stream_url, { timeout: 180_000, intervals: [500] }).not.toBeNull();

  const sameDocument = await openAssetPage(page, first.token);
  const player = page.getByTestId("hls-player");
  await expect(player).toHaveAttribute("data-revision", first.md5);
  await player.evaluate((v: HTMLVideoElement) => {
    v.muted = true;
    return v.play();
  });
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 60_000 }).toBeGreaterThan(3);

  const written = await api.newVersion(first.token, writeClip("head-b.mp4", "testsrc2"), "new cut");
  const second = written.data as { md5: string };
  // Within 2 s the page says the head's stream is on its way, then plays it where the viewer was.
  await expect(page.getByTestId("encode-status").or(player.and(page.locator(`[data-revision="${second.md5}"]`)))).toBeVisible({ timeout: LIVE_MS });
  await expect(player).toHaveAttribute("data-revision", second.md5, { timeout: 180_000 });
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => (v.paused ? -1 : v.currentTime)), { timeout: 30_000 }).toBeGreaterThan(3.5);
  const stream = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name).filter((n) => n.includes("/stream")));
  expect(stream.length, "the new stream was read").toBeGreaterThan(0);
  await snap(page, testInfo, "video-after-api-write");
  await sameDocument();
});
