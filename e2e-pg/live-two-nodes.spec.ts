import crypto from "node:crypto";
import os from "node:os";
import path from "node:path";
import { expect, request as playwrightRequest, test, type Page } from "@playwright/test";
import { scaleServerUrl, startCluster, type Cluster } from "../bench/scale/setup";
import { apiClient } from "../e2e/support/api";
import { makeFixtures } from "../e2e/support/files";

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

/** Signs in on node A and opens `url` there; waits for its live stream; answers a check that the page was not reloaded since. */
async function openOnA(page: Page, url: string) {
  await page.goto(`${A}/login`);
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/w\/[^/]+\/boards$/);
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
