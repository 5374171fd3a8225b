import { apiClient, setServerClock } from "../support/api";
import { seed } from "../support/env";
import { holdScriptsBack } from "../support/hydrated";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";


/** An asset with stored versions 1 and 2 (v1 carries a comment) and the head at 3. */
async function assetWithHistory(api: ReturnType<typeof apiClient>, title: string) {
  const board = await api.createBoard(`${title} board`);
  const asset = await api.upload(seed.files.image, { board: board.token, title });
  // Each state keeps the thumbnails it had when it was stored: wait for them before the next write.
  const thumbnailsMade = () => expect.poll(async () => (await api.asset(asset.token)).thumbnails.length, { timeout: 30_000 }).toBeGreaterThan(0);
  await thumbnailsMade();
  await api.newVersion(asset.token, seed.files.imageB, "orange original");
  await thumbnailsMade();
  await api.newVersion(asset.token, seed.files.imageC);
  await thumbnailsMade();
  return asset;
}

test("revert a version from the timeline and see the head move", async ({ page, request }, testInfo) => {
  const slug = seed.workspaces.s3;
  const api = apiClient(request, slug, seed.tokens.s3);
  const asset = await assetWithHistory(api, "Sunrise hero");
  const v1md5 = (await api.versions(asset.token)).data.find((v: { version_number: number }) => v.version_number === 1).md5;

  await page.goto(`/w/${slug}/assets/${asset.token}`);
  const timeline = page.getByRole("list", { name: "Versions, newest first" });
  await expect(timeline.getByRole("listitem")).toHaveCount(3);
  await expect(page.getByTestId("version-3")).toContainText("head · current");
  await expect(page.getByTestId("version-2")).toContainText("revertable");
  await expect(page.getByTestId("version-1")).toContainText("UPLOAD");
  await expect(page.getByText("Revert window: unlimited.")).toBeVisible();
  await snap(page, testInfo, "timeline-before-revert");

  await page.getByRole("button", { name: "Revert to version 1" }).click();
  const dialog = page.getByRole("dialog", { name: "Revert to version 1?" });
  await expect(dialog).toContainText("kept in the history as v3");
  await dialog.getByLabel("Comment (optional)").fill("back to the orange one");
  await snap(page, testInfo, "revert-confirmation");
  await dialog.getByRole("button", { name: "Revert to v1" }).click();

  await expect(page.getByRole("status").filter({ hasText: "Reverted to version 1" })).toContainText("The head is now v4");
  await expect(page.getByTestId("version-4")).toContainText("head · current");
  await expect(page.getByTestId("comment-v3")).toHaveText("back to the orange one");
  await expect(timeline.getByRole("listitem")).toHaveCount(4);
  await snap(page, testInfo, "timeline-after-revert");
  const after = await api.asset(asset.token);
  expect(after.head_version_number).toBe(4);
  expect(after.md5).toBe(v1md5);
  // The preview shows the restored content, not the browser's cached copy of the same link.
  await expect(page.getByRole("img", { name: "Sunrise hero" })).toHaveAttribute("src", new RegExp(`[?&]v=${v1md5.slice(0, 12)}`));
});

test("edit and clear a version comment inline", async ({ page, request }, testInfo) => {
  const slug = seed.workspaces.s3;
  const api = apiClient(request, slug, seed.tokens.s3);
  const asset = await assetWithHistory(api, "Comment target");
  await page.goto(`/w/${slug}/assets/${asset.token}`);

  await expect(page.getByTestId("comment-v1")).toHaveText("orange original");
  await page.getByRole("button", { name: "Edit comment of version 2" }).click();
  await page.getByLabel("Comment on version 2").fill("approved by the client");
  await page.getByRole("button", { name: "Save comment" }).click();
  await expect(page.getByTestId("comment-v2")).toHaveText("approved by the client");
  await snap(page, testInfo, "comment-edited");
  await page.reload();
  await expect(page.getByTestId("comment-v2")).toHaveText("approved by the client");

  await page.getByRole("button", { name: "Edit comment of version 1" }).click();
  await page.getByRole("button", { name: "Clear comment" }).click();
  await expect(page.getByTestId("comment-v1")).toHaveText("No comment");
  const stored = await api.versions(asset.token);
  expect(stored.data.find((v: { version_number: number }) => v.version_number === 1).comment).toBeNull();
  expect(stored.head_version_number).toBe(3);
});

test("compare two versions side by side", async ({ page, request }, testInfo) => {
  const slug = seed.workspaces.s3;
  const api = apiClient(request, slug, seed.tokens.s3);
  const asset = await assetWithHistory(api, "Compare me");
  await page.goto(`/w/${slug}/assets/${asset.token}`);
  await page.getByTestId("version-1").getByLabel("Compare").check();
  await page.getByTestId("version-3").getByLabel("Compare").check();
  const panel = page.getByRole("region", { name: "Comparing v1 and v3 (head)" });
  await expect(panel.getByRole("img")).toHaveCount(2);
  await expect(panel.getByRole("row", { name: /MD5/ })).toHaveAttribute("data-differs", "true");
  await expect(panel.getByRole("row", { name: /Media type/ })).not.toHaveAttribute("data-differs", "true");
  await snap(page, testInfo, "compare");
});

test.describe("past the revert window on a free plan", () => {
  test.afterEach(async ({ request }) => setServerClock(request, null));

  test("old versions are shown as past the 7-day window, without revert", async ({ page, request }, testInfo) => {
    const slug = seed.workspaces.free;
    const api = apiClient(request, slug, seed.tokens.free);
    const asset = await assetWithHistory(api, "Old poster");
    await setServerClock(request, new Date(Date.now() + 8 * 86_400_000));
    await page.goto(`/w/${slug}/assets/${asset.token}`);
    await expect(page.getByText("Revert window: 7 days.")).toBeVisible();
    await expect(page.getByTestId("version-1")).toContainText("past the 7-day window");
    await expect(page.getByRole("button", { name: /Revert to version/ })).toHaveCount(0);
    await snap(page, testInfo, "past-window");
  });
});

test("edit details, keeping the previous state as a version", async ({ page, request }, testInfo) => {
  const slug = seed.workspaces.s3;
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Details board");
  const asset = await api.upload(seed.files.image, { board: board.token, title: "Draft title" });
  await page.goto(`/w/${slug}/assets/${asset.token}`);
  const form = page.getByRole("form", { name: "Asset details" });
  await form.getByLabel("Title").fill("Final title");
  await form.getByLabel("Tags").fill("hero, summer");
  await form.getByLabel("Custom fields").fill("client: ACME\nshot: 12");
  await form.getByLabel("Keep the current state as a version before saving").check();
  await form.getByLabel("Version comment (optional)").fill("before the rename");
  await form.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByText("The previous state is kept as version 1.")).toBeVisible();
  await expect(page.getByRole("heading", { level: 1, name: "Final title" })).toBeVisible();
  await expect(page.getByTestId("version-1")).toContainText("Draft title");
  await expect(page.getByTestId("comment-v1")).toHaveText("before the rename");
  await snap(page, testInfo, "details-checkpoint");
  const saved = await api.asset(asset.token);
  expect(saved).toMatchObject({ title: "Final title", tags: ["hero", "summer"], fields: { client: "ACME", shot: "12" }, head_version_number: 2 });
});

test("the details form stays disabled until the page is live, so nothing typed before is lost", async ({ page, request }) => {
  const slug = seed.workspaces.s3;
  const api = apiClient(request, slug, seed.tokens.s3);
  const asset = await api.upload(seed.files.image, { title: "Before hydration" });
  // The server's HTML, details filled in, is all there is until release().
  const release = await holdScriptsBack(page);
  await page.goto(`/w/${slug}/assets/${asset.token}`, { waitUntil: "commit" });
  const form = page.getByRole("form", { name: "Asset details" });
  await expect(form.getByLabel("Title")).toHaveValue("Before hydration");
  await expect(form.getByLabel("Title")).toBeDisabled();
  await expect(form.getByRole("button", { name: "Save details" })).toBeDisabled();
  release();
  await expect(form.getByLabel("Title")).toBeEnabled();
  await form.getByLabel("Title").fill("Typed once live");
  await form.getByRole("button", { name: "Save details" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Typed once live" })).toBeVisible();
  expect((await api.asset(asset.token)).title).toBe("Typed once live");
});
