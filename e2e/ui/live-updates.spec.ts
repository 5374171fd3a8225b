import type { Page } from "@playwright/test";
import { apiClient } from "../support/api";
import { seed } from "../support/env";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

/**
 * Live updates (lib/live, lib/client/live-updates.ts): changes made elsewhere (the API, another
 * browser, a job) show on an open page within 2 s, with no reload. The page polls nothing while its
 * stream is up, so only the stream can bring them.
 */
const slug = seed.workspaces.s3;
const LIVE_MS = 2_000;

/** Opens a page and waits until its live stream is open; answers a check that the page was never reloaded. */
async function openLive(page: Page, url: string) {
  let navigations = 0;
  const streamed = page.waitForResponse((r) => new URL(r.url()).pathname === `/api/live/${slug}` && r.status() === 200);
  await page.goto(url);
  expect((await streamed).headers()["content-type"]).toMatch(/^text\/event-stream/);
  page.on("framenavigated", (f) => f === page.mainFrame() && navigations++);
  await page.evaluate(() => ((window as unknown as { __notReloaded: boolean }).__notReloaded = true));
  return async () => {
    expect(navigations, "the page navigated").toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __notReloaded?: boolean }).__notReloaded)).toBe(true);
  };
}

test("a version written through the API appears in the open asset page's timeline", async ({ page, request }, testInfo) => {
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Live timeline");
  const asset = await api.upload(seed.files.image, { board: board.token, title: "Live timeline asset" });
  const notReloaded = await openLive(page, `/w/${slug}/assets/${asset.token}`);
  const timeline = page.getByRole("list", { name: "Versions, newest first" });
  await expect(page.getByTestId("version-1").first()).toBeVisible();

  const written = await api.newVersion(asset.token, seed.files.imageB, "written by a colleague's script");
  const head = written.data.head_version_number as number;
  await expect(page.getByTestId(`version-${head}`)).toBeVisible({ timeout: LIVE_MS });
  await expect(timeline).toContainText("written by a colleague's script", { timeout: LIVE_MS });
  await snap(page, testInfo, "timeline-after-api-write");
  await notReloaded();
});

test("an encode finishing updates the card's badge on the open board grid", async ({ page, request }, testInfo) => {
  test.setTimeout(240_000);
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Live encodes");
  const notReloaded = await openLive(page, `/w/${slug}/boards/${board.token}`);

  const video = await api.upload(seed.files.video, { board: board.token, title: "Live encode reel" });
  const card = page.getByRole("gridcell").filter({ has: page.locator(`a[href="/w/${slug}/assets/${video.token}"]`) });
  await expect(card, "the new asset's card").toBeVisible({ timeout: LIVE_MS });

  // The API says the stream is published: the card says so within 2 s.
  await expect.poll(async () => (await api.asset(video.token)).stream_url, { timeout: 180_000, intervals: [200] }).not.toBeNull();
  await expect(card.getByText("stream ready")).toBeVisible({ timeout: LIVE_MS });
  await snap(page, testInfo, "grid-encode-ready");
  await notReloaded();
});

test("an upload in a second browser appears in the first one's grid", async ({ page, browser }, testInfo) => {
  const api = apiClient(page.request, slug, seed.tokens.s3);
  const board = await api.createBoard("Live uploads");
  const notReloaded = await openLive(page, `/w/${slug}/boards/${board.token}`);

  const other = await browser.newContext({ storageState: await page.context().storageState() });
  try {
    const colleague = await other.newPage();
    await colleague.goto(`/w/${slug}/boards/${board.token}`);
    const completed = colleague.waitForResponse((r) => r.url().endsWith(`/v1/${slug}/assets/upload_complete`) && r.status() === 200);
    await colleague.locator("input.uppy-Dashboard-input[type=file]").first().setInputFiles([seed.files.imageC]);
    await colleague.getByRole("button", { name: /^Upload 1 file$/ }).click();
    const uploaded = (await (await completed).json()).data as { token: string };

    await expect(page.locator(`a[href="/w/${slug}/assets/${uploaded.token}"]`)).toBeVisible({ timeout: LIVE_MS });
    await snap(page, testInfo, "grid-after-other-browser-upload");
    await notReloaded();
  } finally {
    await other.close();
  }
});
