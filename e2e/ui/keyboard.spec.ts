import type { Page } from "@playwright/test";
import { apiClient } from "../support/api";
import { seed } from "../support/env";
import { hydrated } from "../support/hydrated";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

const slug = seed.workspaces.s3;

/** Presses `key` until `done` holds for the focused element (at most `max` times); fails otherwise. */
async function pressUntil(page: Page, key: string, done: (el: Element | null) => boolean, max: number, what: string) {
  const check = () => page.evaluate(`(${done.toString()})(document.activeElement)`) as Promise<boolean>;
  for (let i = 0; i < max; i++) {
    if (await check()) return;
    await page.keyboard.press(key);
  }
  expect(await check(), `${what} within ${max} presses of ${key}`).toBe(true);
}

const focusedLabel = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? null);

test("keyboard only: open a board from the tree, open an asset, revert a version, go back", async ({ page, request }, testInfo) => {
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Keyboard journey");
  const asset = await api.upload(seed.files.image, { board: board.token, title: "Kb first" });
  await expect.poll(async () => (await api.asset(asset.token)).thumbnails.length, { timeout: 30_000 }).toBeGreaterThan(0);
  await api.newVersion(asset.token, seed.files.imageB, "second state");
  await api.upload(seed.files.imageC, { board: board.token, title: "Kb second" });

  await page.goto(`/w/${slug}/boards`);
  await hydrated(page, '[role="treeitem"]');
  await pressUntil(page, "Tab", (el) => el?.getAttribute("role") === "treeitem", 40, "the tree takes focus");
  await pressUntil(page, "ArrowDown", (el) => el?.getAttribute("aria-label") === "Keyboard journey", 300, "the board is reached in the tree");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/boards/${board.token}$`));
  await expect(page.getByRole("heading", { level: 1, name: "Keyboard journey" })).toBeVisible();

  // `/` goes to the board's filter; Tab from there reaches the grid's one tab stop.
  await hydrated(page, "#board-filter");
  await page.keyboard.press("/");
  await expect(page.getByLabel("Filter this board")).toBeFocused();
  await pressUntil(page, "Tab", (el) => !!el?.hasAttribute("data-asset-index"), 20, "the grid takes focus");
  expect(await focusedLabel(page)).toBe("Kb second");
  await page.keyboard.press("ArrowRight");
  expect(await focusedLabel(page)).toBe("Kb first");
  await page.keyboard.press("ArrowLeft");
  expect(await focusedLabel(page)).toBe("Kb second");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`/assets/${asset.token}$`));
  await expect(page.getByRole("heading", { level: 1, name: "Kb first" })).toBeVisible();
  await hydrated(page, "[data-version-item]");

  // The timeline: each version is a tab stop; Up/Down move between them, Enter reverts.
  await pressUntil(page, "Tab", (el) => !!el?.hasAttribute("data-version-item"), 80, "the version timeline takes focus");
  await pressUntil(page, "ArrowDown", (el) => !!el?.getAttribute("aria-label")?.startsWith("Version 1,"), 5, "version 1 is reached");
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Revert to version 1?" });
  await expect(dialog).toBeVisible();
  await page.keyboard.type("restored by keyboard");
  await pressUntil(page, "Tab", (el) => el?.textContent === "Revert to v1", 6, "the confirm button is reached");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status").filter({ hasText: "Reverted to version 1" })).toBeVisible();
  expect((await api.asset(asset.token)).head_version_number).toBe(3);
  await snap(page, testInfo, "keyboard-reverted");

  // Escape goes back to the asset's board (focus is on the timeline, not in a field).
  await page.keyboard.press("Escape");
  await expect(page).toHaveURL(new RegExp(`/boards/${board.token}$`));
  await expect(page.getByRole("heading", { level: 1, name: "Keyboard journey" })).toBeVisible();
});

test("the lightbox: next and previous by keys and buttons, focus kept inside, Esc closes", async ({ page, request }, testInfo) => {
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Lightbox board");
  const c = await api.upload(seed.files.imageC, { board: board.token, title: "Light C" });
  const b = await api.upload(seed.files.imageB, { board: board.token, title: "Light B" });
  const a = await api.upload(seed.files.image, { board: board.token, title: "Light A" });

  await page.goto(`/w/${slug}/boards/${board.token}`);
  await hydrated(page, "[data-asset-index]");
  await page.keyboard.press("/");
  await pressUntil(page, "Tab", (el) => !!el?.hasAttribute("data-asset-index"), 20, "the grid takes focus");
  expect(await focusedLabel(page)).toBe("Light A");
  await page.keyboard.press("v");
  await expect(page.getByRole("dialog", { name: "Preview: Light A" })).toBeVisible();
  const box = page.getByTestId("lightbox");
  const position = box.getByTestId("lightbox-position");
  await expect(position).toHaveText("1 of 3");
  await expect(page.getByTestId("lightbox-image")).toHaveAttribute("src", new RegExp(`/media/${a.token}/display`));

  await page.keyboard.press("ArrowRight");
  await expect(position).toHaveText("2 of 3");
  await expect(page.getByTestId("lightbox-image")).toHaveAttribute("src", new RegExp(`/media/${b.token}/display`));
  await page.keyboard.press("ArrowRight");
  await expect(position).toHaveText("3 of 3");
  await expect(page.getByTestId("lightbox-image")).toHaveAttribute("src", new RegExp(`/media/${c.token}/display`));
  await expect(page.getByRole("button", { name: "Next asset" })).toBeDisabled();
  await page.keyboard.press("ArrowRight");
  await expect(position).toHaveText("3 of 3");
  await page.keyboard.press("ArrowLeft");
  await expect(position).toHaveText("2 of 3");
  await snap(page, testInfo, "lightbox");

  // Focus trap: Tab and Shift+Tab cycle through the dialog's controls only.
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press(i % 3 === 2 ? "Shift+Tab" : "Tab");
    expect(await page.evaluate(() => !!document.activeElement?.closest("dialog[open]")), `focus inside the lightbox after press ${i + 1}`).toBe(true);
  }
  // The buttons work too (pressed from the keyboard).
  await page.getByRole("button", { name: "Previous asset" }).focus();
  await page.keyboard.press("Enter");
  await expect(position).toHaveText("1 of 3");
  await page.getByRole("button", { name: "Next asset" }).focus();
  await page.keyboard.press("Enter");
  await expect(position).toHaveText("2 of 3");

  await page.keyboard.press("Escape");
  await expect(box).toBeHidden();
  // Focus lands on the card the lightbox was showing, and the grid's arrows go on from there.
  await expect.poll(() => focusedLabel(page)).toBe("Light B");
  await page.keyboard.press("ArrowRight");
  expect(await focusedLabel(page)).toBe("Light C");
});

test("the lightbox plays a board's video with the HLS player and the board page's access token", async ({ page, request }) => {
  test.setTimeout(240_000);
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Lightbox reel");
  await api.upload(seed.files.image, { board: board.token, title: "Reel still" });
  const video = await api.upload(seed.files.video, { board: board.token, title: "Reel clip" });
  await expect.poll(async () => (await api.asset(video.token)).stream_url, { timeout: 180_000 }).toBeTruthy();
  const media: string[] = [];
  page.on("request", (r) => void (r.url().includes("/media/") && media.push(r.url())));

  await page.goto(`/w/${slug}/boards/${board.token}`);
  await hydrated(page, "[data-asset-index]");
  await page.getByRole("link", { name: "Reel clip" }).focus();
  await page.keyboard.press("v");
  const box = page.getByTestId("lightbox");
  await expect(box.getByRole("heading", { name: "Reel clip" })).toBeVisible();
  const player = box.getByTestId("hls-player");
  await expect(player).toBeVisible();
  await player.evaluate((v: HTMLVideoElement) => {
    v.muted = true;
    return v.play();
  });
  await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 60_000 }).toBeGreaterThan(1);
  const stream = media.filter((u) => u.includes(`/media/${video.token}/stream`));
  expect(stream.length).toBeGreaterThan(1);
  expect(stream.some((u) => new URL(u).searchParams.has("token"))).toBe(true);

  // Moving on tears the player down and shows the next asset.
  await page.keyboard.press("ArrowRight");
  await expect(box.getByRole("heading", { name: "Reel still" })).toBeVisible();
  await expect(player).toHaveCount(0);
  await expect(box.getByTestId("lightbox-image")).toBeVisible();
});

test("`/` on a page without a search box opens the workspace's search with its box focused, except while typing", async ({ page, request }) => {
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Slash board");
  const asset = await api.upload(seed.files.image, { board: board.token, title: "Slash asset" });
  const searchBox = page.getByRole("searchbox", { name: /Words in titles/ });

  // "All assets": no search box on the page, so `/` goes to the search, which takes what is typed next.
  await page.goto(`/w/${slug}/boards`);
  await hydrated(page, "[data-asset-index]");
  await expect(page.locator('input[aria-keyshortcuts="/"]')).toHaveCount(0);
  await page.keyboard.press("/");
  await expect(page).toHaveURL(new RegExp(`/w/${slug}/search$`));
  await expect(searchBox).toBeFocused();
  await page.keyboard.type("Slash");
  await expect(searchBox).toHaveValue("Slash");

  // The asset page: typed into a field, `/` is a character; outside it, the shortcut.
  await page.goto(`/w/${slug}/assets/${asset.token}`);
  await hydrated(page, "[data-version-item]");
  const title = page.getByRole("textbox", { name: "Title" });
  await title.click();
  await page.keyboard.press("End");
  await page.keyboard.press("/");
  await expect(title).toHaveValue("Slash asset/");
  await expect(page).toHaveURL(new RegExp(`/assets/${asset.token}$`));
  await page.getByRole("heading", { level: 1, name: "Slash asset" }).click();
  await page.keyboard.press("/");
  await expect(page).toHaveURL(new RegExp(`/w/${slug}/search$`));
  await expect(searchBox).toBeFocused();

  // A page with a box of its own keeps `/` for it (the board's filter), and stays where it is.
  await page.goto(`/w/${slug}/boards/${board.token}`);
  await hydrated(page, "#board-filter");
  await page.keyboard.press("/");
  await expect(page.getByLabel("Filter this board")).toBeFocused();
  await expect(page).toHaveURL(new RegExp(`/boards/${board.token}$`));
});
