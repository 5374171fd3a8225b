import crypto from "node:crypto";
import os from "node:os";
import path from "node:path";
import { expect, request as playwrightRequest, test, type Page } from "@playwright/test";
import { scaleServerUrl, startCluster, type Cluster } from "../bench/scale/setup";
import { apiClient } from "../e2e/support/api";
import { makeFixtures, writeShortVideo } from "../e2e/support/files";

/**
 * Live updates across app nodes on one PostgreSQL, in a browser: the page is served by node A,
 * every write goes through the API of node B, and the page shows it within 2 s with no reload
 * (node B's NOTIFY reaches node A's LISTEN; docs/architecture.md, "Live updates").
 */
const LIVE_MS = 2_000;
const OWNER = { email: `owner-${crypto.randomBytes(3).toString("hex")}@easel.test`, password: "correct horse battery staple" };
const slug = "live-two-nodes";
let cluster: Cluster;
let A: string;
let B: string;
let token: string;
let files: Awaited<ReturnType<typeof makeFixtures>>;

test.beforeAll(async () => {
  test.setTimeout(300_000);
  // Jobs run on node B only, so node A's page can learn of their results only through the channel.
  cluster = await startCluster({ serverUrl: scaleServerUrl(), nodes: 2, env: { EASEL_RATE_LIMIT_PER_MIN: "100000" }, nodeEnv: (i): Record<string, string> => (i === 0 ? { EASEL_JOBS_DISABLED: "1" } : {}) });
  [A, B] = cluster.nodes.map((n) => n.origin);
  await cluster.cli("workspace", "create", slug, "--plan", "team");
  token = (await cluster.cli("token", "create", slug, "--scopes", "read,write")).trim().split("\n").at(-1)!;
  await cluster.cli("admin", "create", OWNER.email, OWNER.password);
  files = await makeFixtures(path.join(os.tmpdir(), `easel-e2e-pg-${process.pid}`));
});

test.afterAll(async () => {
  await cluster?.close();
});

/** Signs in on `origin` through its login page. */
async function signIn(page: Page, origin: string) {
  await page.goto(`${origin}/login`);
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/w\/[^/]+\/boards$/);
}

/** Signs in on node A and opens `url` there; waits for its live stream; answers a check that the page was not reloaded since. */
async function openOnA(page: Page, url: string) {
  await signIn(page, A);
  const streamed = page.waitForResponse((r) => r.url().startsWith(`${A}/api/live/${slug}`) && r.status() === 200);
  await page.goto(`${A}${url}`);
  await streamed;
  // A flag on the page's window survives anything but a reload or a new document.
  await page.evaluate(() => ((window as unknown as { __notReloaded: boolean }).__notReloaded = true));
  return async () => expect(await page.evaluate(() => (window as unknown as { __notReloaded?: boolean }).__notReloaded), "the page was reloaded").toBe(true);
}

test("an upload and a version written on node B show on node A's open pages within 2 s", async ({ page }) => {
  const onB = apiClient(await playwrightRequest.newContext({ baseURL: B }), slug, token);
  const board = await onB.createBoard("Two nodes");
  const notNavigated = await openOnA(page, `/w/${slug}/boards/${board.token}`);

  const asset = await onB.upload(files.image, { board: board.token, title: "Uploaded on node B" });
  await expect(page.locator(`a[href="/w/${slug}/assets/${asset.token}"]`).first(), "the new card on node A's grid").toBeVisible({ timeout: LIVE_MS });
  await notNavigated();

  const notNavigatedAgain = await openOnA(page, `/w/${slug}/assets/${asset.token}`);
  await expect(page.getByTestId("version-1").first()).toBeVisible();
  const written = await onB.newVersion(asset.token, files.imageB, "written through node B");
  await expect(page.getByTestId(`version-${written.data.head_version_number}`)).toBeVisible({ timeout: LIVE_MS });
  await expect(page.getByRole("list", { name: "Versions, newest first" })).toContainText("written through node B", { timeout: LIVE_MS });
  await notNavigatedAgain();
});

test("an encode finishing on node B updates the card's badge on node A's board grid within 2 s", async ({ page }) => {
  test.setTimeout(300_000);
  const onB = apiClient(await playwrightRequest.newContext({ baseURL: B }), slug, token);
  const board = await onB.createBoard("Two nodes, encode");
  const notNavigated = await openOnA(page, `/w/${slug}/boards/${board.token}`);

  // A short clip in one PUT: the nodes' shared s3rver bucket cannot list a multipart upload's parts.
  const clip = writeShortVideo(path.join(path.dirname(files.video), "short.mp4"));
  const video = await onB.upload(clip, { board: board.token, title: "Encoded on node B" });
  const card = page.getByRole("gridcell").filter({ has: page.locator(`a[href="/w/${slug}/assets/${video.token}"]`) });
  await expect(card, "the new video's card on node A").toBeVisible({ timeout: LIVE_MS });

  // The moment node B's API says the stream is published; node A's card says so within 2 s of it.
  await expect.poll(async () => (await onB.asset(video.token)).stream_url, { timeout: 240_000, intervals: [200] }).not.toBeNull();
  const published = Date.now();
  await expect(card.getByText("stream ready")).toBeVisible({ timeout: LIVE_MS });
  console.log(`the badge showed on node A ${Date.now() - published} ms after stream_url was seen set`);
  await notNavigated();
});

test("an upload through the page of node B in a second browser shows on node A's grid within 2 s", async ({ page, browser }) => {
  const onB = apiClient(await playwrightRequest.newContext({ baseURL: B }), slug, token);
  const board = await onB.createBoard("Two nodes, two browsers");
  const notNavigated = await openOnA(page, `/w/${slug}/boards/${board.token}`);

  const other = await browser.newContext();
  try {
    const colleague = await other.newPage();
    await signIn(colleague, B);
    await colleague.goto(`${B}/w/${slug}/boards/${board.token}`);
    const completed = colleague.waitForResponse((r) => r.url() === `${B}/v1/${slug}/assets/upload_complete` && r.status() === 200);
    await colleague.locator("input.uppy-Dashboard-input[type=file]").first().setInputFiles([files.imageC]);
    await colleague.getByRole("button", { name: /^Upload 1 file$/ }).click();
    const uploaded = (await (await completed).json()).data as { token: string };

    await expect(page.locator(`a[href="/w/${slug}/assets/${uploaded.token}"]`).first(), "node B's upload on node A's grid").toBeVisible({ timeout: LIVE_MS });
    await notNavigated();
  } finally {
    await other.close();
  }
});
