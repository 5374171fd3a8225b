import { execFileSync } from "node:child_process";
import type { Page, Route } from "@playwright/test";
import { apiClient } from "../support/api";
import { seed } from "../support/env";
import { writeTestClip } from "../support/files";
import { expect, test } from "../support/page-test";
import { docsShot, snap } from "../support/shots";

const slug = seed.workspaces.s3;

/**
 * Answers the page's reads of one asset (its own GET and its board's list) as a running encode
 * would have them, at the progress `now()` gives: so the bar's display of every value is checked
 * without waiting for an encode to pass through each.
 */
async function encodingAs(page: Page, assetToken: string, now: () => { fraction: number; rung: string; eta_seconds: number | null }) {
  const rewrite = (a: Record<string, unknown>) =>
    a.token === assetToken ? { ...a, encode_status: "processing", stream_url: null, storyboard_url: null, encode_progress: now() } : a;
  const handler = async (route: Route) => {
    if (route.request().method() !== "GET") return route.fallback();
    const response = await route.fetch();
    const body = await response.json();
    body.data = Array.isArray(body.data) ? body.data.map(rewrite) : rewrite(body.data);
    await route.fulfill({ response, json: body });
  };
  await page.route(new RegExp(`/v1/${slug}/(assets/${assetToken}|boards/[A-Za-z0-9]+/assets)(\\?|$)`), handler);
}

test("an encode's progress shows on the asset page and the board card, and moves with the live updates", async ({ page, request }, testInfo) => {
  test.setTimeout(120_000);
  const clip = testInfo.outputPath("progress-clip.mp4");
  writeTestClip(clip, { size: "320x180", seconds: 2, audio: false });
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Encoding");
  const video = await api.upload(clip, { board: board.token, title: "Long take" });
  const rename = async (title: string) => {
    const res = await request.patch(`/v1/${slug}/assets/${video.token}`, { headers: { authorization: `Bearer ${seed.tokens.s3}` }, data: { asset: { title } } });
    expect(res.status()).toBe(200);
  };
  // The real encode of this short clip ends first, so every read after it is one the test caused.
  await expect.poll(async () => (await api.asset(video.token)).encode_status, { timeout: 90_000 }).toBe("ready");
  let progress = { fraction: 0.18, rung: "360p", eta_seconds: 300 };
  await encodingAs(page, video.token, () => progress);
  const reads: string[] = [];
  page.on("request", (r) => r.url().includes(`/assets/${video.token}`) && r.method() === "GET" && reads.push(r.url()));

  // The page renders the asset as the server read it; a change named by the live updates reads it again.
  await page.goto(`/w/${slug}/assets/${video.token}`);
  await expect(page.getByTestId("hls-player")).toBeVisible();
  await rename("Long take, first cut");
  const bar = page.getByRole("progressbar", { name: "Encode progress" });
  await expect(bar).toHaveAttribute("aria-valuenow", "18");
  await expect(bar).toHaveAttribute("aria-valuetext", "Encoding 360p · 18 % · about 5 min left");
  await expect(page.getByTestId("encode-progress-text")).toHaveText("Encoding 360p · 18 % · about 5 min left");

  // Nothing polls: with no change, no read.
  const before = reads.length;
  await page.waitForTimeout(3000);
  expect(reads.length).toBe(before);
  progress = { fraction: 0.64, rung: "720p", eta_seconds: 45 };
  await rename("Long take, trimmed");
  await expect(bar).toHaveAttribute("aria-valuenow", "64");
  await expect(page.getByTestId("encode-progress-text")).toHaveText("Encoding 720p · 64 % · less than a minute left");
  await snap(page, testInfo, "encode-progress-asset");
  await docsShot(page, "video-encode-progress");

  // The board card: a bar over the thumbnail's foot, with the same words.
  await page.goto(`/w/${slug}/boards/${board.token}`);
  progress = { fraction: 0.9, rung: "720p", eta_seconds: 10 };
  await rename("Long take, final");
  const card = page.getByTestId("asset-card").filter({ hasText: "Long take, final" });
  await expect(card.getByRole("progressbar", { name: "Encode progress" })).toHaveAttribute("aria-valuenow", "90");
  await expect(card).toContainText("Encoding 720p · 90 % · less than a minute left");
  await snap(page, testInfo, "encode-progress-card");
  await docsShot(page, "video-encode-progress-card");
});

test("the progress bar moves on an open page during a real encode", async ({ page, request }, testInfo) => {
  test.setTimeout(240_000);
  // 30 s of a noisy pattern: an encode of several seconds even on a fast machine, reporting about once a second.
  const clip = testInfo.outputPath("real-encode.mp4");
  execFileSync(process.env.FFMPEG_PATH ?? "ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25,noise=alls=20:allf=t", "-t", "30", "-c:v", "libx264", "-preset", "veryfast", "-crf", "32", "-pix_fmt", "yuv420p", clip]);
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Real encode");
  // Every value the bar shows, as it changes (the page is watched, not sampled).
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { seenProgress: string[] }).seenProgress = seen;
    new MutationObserver(() => {
      const value = document.querySelector('[data-testid="encode-progress"]')?.getAttribute("aria-valuenow");
      if (value != null && seen[seen.length - 1] !== value) seen.push(value);
    }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["aria-valuenow"] });
  });
  const video = await api.upload(clip, { board: board.token, title: "Thirty seconds" });
  await page.goto(`/w/${slug}/assets/${video.token}`);
  await expect(page.getByTestId("encode-progress")).toBeVisible({ timeout: 120_000 });
  await snap(page, testInfo, "encode-progress-real");
  await expect(page.getByTestId("hls-player")).toBeVisible({ timeout: 180_000 });
  const seen = (await page.evaluate(() => (window as unknown as { seenProgress: string[] }).seenProgress)).map(Number);
  const shown = `values shown: ${seen.join(", ")}`;
  testInfo.annotations.push({ type: "progress", description: shown });
  expect(new Set(seen).size, shown).toBeGreaterThanOrEqual(3);
  expect(seen[seen.length - 1], shown).toBeGreaterThan(seen[0]);
  // Forwards only; a reread that set out just before a report was pushed may land just after it
  // and show the stored value a moment behind, never more than a report's step.
  for (let i = 1; i < seen.length; i++) expect(seen[i], shown).toBeGreaterThanOrEqual(Math.max(...seen.slice(0, i)) - 5);
});
