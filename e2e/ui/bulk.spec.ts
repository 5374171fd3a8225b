import fs from "node:fs";
import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { apiClient } from "../support/api";
import { seed } from "../support/env";
import { seedAssets } from "../support/grid-seed";
import { hydrated } from "../support/hydrated";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

const slug = seed.workspaces.s3;
/** Read when a test runs: the seed is written by the setup project, after spec files are loaded. */
const auth = () => ({ authorization: `Bearer ${seed.tokens.s3}` });

/**
 * Scrolls the virtualized grid until the card titled `title` is rendered; answers its checkbox.
 * The grid renders the rows of a new scroll position a frame or two after the scroll event, so
 * each step waits for two frames before it looks: looking at once could scroll past the card
 * before it was ever drawn (a loaded machine did).
 */
async function checkboxOf(page: Page, title: string): Promise<Locator> {
  const box = page.getByRole("checkbox", { name: `Select ${title}`, exact: true });
  const scroller = page.getByTestId("asset-scroller");
  const scrollAndSettle = (top: number | null) =>
    scroller.evaluate(
      (el, to) =>
        new Promise<void>((settled) => {
          if (to === null) el.scrollBy({ top: el.clientHeight / 2 });
          else el.scrollTo({ top: to });
          requestAnimationFrame(() => requestAnimationFrame(() => settled()));
        }),
      top,
    );
  await scrollAndSettle(0);
  for (let i = 0; i < 40 && (await box.count()) === 0; i++) await scrollAndSettle(null);
  await expect(box, `the card ${title}`).toHaveCount(1);
  return box;
}

/** Every asset on a board over /v1, by title. */
async function boardOverApi(request: APIRequestContext, board: string): Promise<Map<string, { token: string; tags: string[] }>> {
  const res = await request.get(`/v1/${slug}/boards/${board}/assets?per_page=100`, { headers: auth() });
  expect(res.status()).toBe(200);
  return new Map(((await res.json()).data as { title: string; token: string; tags: string[] }[]).map((a) => [a.title, a]));
}

test("bulk: 30 tagged by click and shift-click, then 10 deleted while the server refuses one: the report names it with the API's code, the other 9 are gone", async ({ page, request }, testInfo) => {
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Bulk thirty");
  seedAssets(board.token, 40, "Bk");
  const title = (n: number) => `Bk ${String(n).padStart(5, "0")}`;
  const before = await boardOverApi(request, board.token);
  expect(before.size).toBe(40);
  const tokenOf = (n: number) => before.get(title(n))!.token;

  // The page's live stream is held off, so a deletion made elsewhere does not take the card off the
  // grid: the bulk run then sends that DELETE, and it is the server that refuses it.
  let streamTries = 0;
  await page.route(`**/api/live/${slug}**`, (route) => {
    streamTries++;
    return route.abort();
  });
  await page.goto(`/w/${slug}/boards/${board.token}`);
  await hydrated(page, "[data-asset-index]");
  await expect(page.getByText("40 assets")).toBeVisible();
  expect(streamTries, "the page tried to open its live stream").toBeGreaterThan(0);

  // Newest first: Bk 00001 … Bk 00040. A click on the 3rd and a shift-click on the 32nd select 30.
  await (await checkboxOf(page, title(3))).click();
  await (await checkboxOf(page, title(32))).click({ modifiers: ["Shift"] });
  await expect(page.getByTestId("selected-count")).toHaveText("30 selected");
  await page.getByRole("button", { name: "Add tag…" }).click();
  const tagDialog = page.getByRole("dialog", { name: "Add a tag to 30 assets" });
  await tagDialog.getByLabel("Tag").fill("thirty");
  await tagDialog.getByRole("button", { name: "Add tag" }).click();
  await expect(page.getByTestId("bulk-progress")).toHaveText("Tagged 30 of 30.", { timeout: 60_000 });
  await expect(page.getByTestId("bulk-failures")).toHaveCount(0);
  const tagged = await boardOverApi(request, board.token);
  for (let n = 1; n <= 40; n++) expect(tagged.get(title(n))!.tags, `${title(n)}'s tags`).toEqual(n >= 3 && n <= 32 ? ["thirty"] : []);

  // Ten: Bk 00005 … Bk 00014. Bk 00009 is deleted over the API behind the page's back.
  await page.getByRole("button", { name: "Dismiss" }).click();
  await (await checkboxOf(page, title(5))).click();
  await (await checkboxOf(page, title(14))).click({ modifiers: ["Shift"] });
  await expect(page.getByTestId("selected-count")).toHaveText("10 selected");
  expect((await request.delete(`/v1/${slug}/assets/${tokenOf(9)}`, { headers: auth() })).status()).toBe(204);
  await expect(await checkboxOf(page, title(9)), "the card stays: no live update reached the page").toBeChecked();

  const refused: number[] = [];
  page.on("response", (r) => {
    if (r.request().method() === "DELETE" && r.url().includes(`/v1/${slug}/assets/`) && !r.ok()) refused.push(r.status());
  });
  await page.getByRole("button", { name: "Delete…" }).click();
  await page.getByRole("dialog", { name: "Delete 10 assets?" }).getByRole("button", { name: "Delete 10" }).click();
  await expect(page.getByTestId("bulk-progress")).toHaveText("Deleted 9 of 10; 1 failed.", { timeout: 60_000 });
  expect(refused, "the server's answer to the refused DELETE").toEqual([404]);
  const failures = page.getByTestId("bulk-failures").getByRole("listitem");
  await expect(failures).toHaveCount(1);
  await expect(failures.first()).toContainText(title(9));
  await expect(failures.first()).toContainText(tokenOf(9));
  await expect(failures.first().getByTestId("bulk-failure-code")).toHaveText("asset_not_found");
  await expect(page.getByTestId("selected-count")).toHaveText("1 selected");
  await snap(page, testInfo, "bulk-delete-refused");

  for (let n = 5; n <= 14; n++) {
    const res = await request.get(`/v1/${slug}/assets/${tokenOf(n)}`, { headers: auth() });
    expect(res.status(), `${title(n)} is deleted`).toBe(404);
  }
  const after = await boardOverApi(request, board.token);
  expect(after.size).toBe(30);
  for (let n = 1; n <= 40; n++) expect(after.has(title(n)), `${title(n)} on the board`).toBe(n < 5 || n > 14);
});

test("bulk delete of a shift-click range, with one asset already gone: the report names it, the rest are deleted", async ({ page, request }, testInfo) => {
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Bulk delete");
  const made: Record<string, string> = {};
  for (const n of [1, 2, 3, 4, 5, 6]) made[`B${n}`] = (await api.upload(seed.files.image, { board: board.token, title: `B${n}` })).token;

  await page.goto(`/w/${slug}/boards/${board.token}`);
  await hydrated(page, "[data-asset-index]");
  await expect(page.getByText("6 assets")).toBeVisible();
  // Newest first: B6 B5 B4 B3 B2 B1. A click and a shift-click select B5..B2.
  await page.getByRole("checkbox", { name: "Select B5" }).click();
  await page.getByRole("checkbox", { name: "Select B2" }).click({ modifiers: ["Shift"] });
  await expect(page.getByTestId("selected-count")).toHaveText("4 selected");
  for (const t of ["B5", "B4", "B3", "B2"]) await expect(page.getByRole("checkbox", { name: `Select ${t}` })).toBeChecked();
  for (const t of ["B6", "B1"]) await expect(page.getByRole("checkbox", { name: `Select ${t}` })).not.toBeChecked();

  // B3 is deleted behind the page's back before the run: the live update drops its card, and the
  // selection (still 4) reports it rather than skipping it silently.
  const gone = await request.delete(`/v1/${slug}/assets/${made.B3}`, { headers: { authorization: `Bearer ${seed.tokens.s3}` } });
  expect(gone.status()).toBe(204);
  await expect(page.getByRole("link", { name: "B3", exact: true })).toHaveCount(0);
  await expect(page.getByTestId("selected-count")).toHaveText("4 selected");

  await page.getByRole("button", { name: "Delete…" }).click();
  await page.getByRole("dialog", { name: "Delete 4 assets?" }).getByRole("button", { name: "Delete 4" }).click();
  await expect(page.getByTestId("bulk-progress")).toHaveText("Deleted 3 of 4; 1 failed.");
  const failures = page.getByTestId("bulk-failures").getByRole("listitem");
  await expect(failures).toHaveCount(1);
  await expect(failures.first()).toContainText(made.B3);
  await expect(failures.first()).toContainText("asset_not_listed");
  await snap(page, testInfo, "bulk-delete-report");

  for (const t of ["B2", "B4", "B5"]) {
    const res = await request.get(`/v1/${slug}/assets/${made[t]}`, { headers: { authorization: `Bearer ${seed.tokens.s3}` } });
    expect(res.status(), `${t} is deleted`).toBe(404);
  }
  for (const t of ["B1", "B6"]) expect((await api.asset(made[t])).title).toBe(t);
  // The grid refreshed: the deleted ones are gone from it, the others stay.
  await expect(page.getByText("2 assets")).toBeVisible();
  await expect(page.getByRole("link", { name: "B4", exact: true })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "B6", exact: true })).toBeVisible();
});

test("bulk tag with ctrl-click, and download originals", async ({ page, request }) => {
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Bulk tag and download");
  const t1 = await api.upload(seed.files.image, { board: board.token, title: "T1" });
  const t2 = await api.upload(seed.files.imageB, { board: board.token, title: "T2" });
  const t3 = await api.upload(seed.files.imageC, { board: board.token, title: "T3" });
  await request.patch(`/v1/${slug}/assets/${t1.token}`, { headers: { authorization: `Bearer ${seed.tokens.s3}` }, data: { asset: { tags: ["kept"] } } });

  await page.goto(`/w/${slug}/boards/${board.token}`);
  await hydrated(page, "[data-asset-index]");
  await page.getByRole("link", { name: "T1", exact: true }).click({ modifiers: ["ControlOrMeta"] });
  await page.getByRole("link", { name: "T3", exact: true }).click({ modifiers: ["ControlOrMeta"] });
  await expect(page).toHaveURL(new RegExp(`/boards/${board.token}$`)); // ctrl-click selects, it does not navigate
  await expect(page.getByTestId("selected-count")).toHaveText("2 selected");

  await page.getByRole("button", { name: "Add tag…" }).click();
  const dialog = page.getByRole("dialog", { name: "Add a tag to 2 assets" });
  await dialog.getByLabel("Tag").fill("launch");
  await dialog.getByRole("button", { name: "Add tag" }).click();
  await expect(page.getByTestId("bulk-progress")).toHaveText("Tagged 2 of 2.");
  expect((await api.asset(t1.token)).tags).toEqual(["kept", "launch"]);
  expect((await api.asset(t3.token)).tags).toEqual(["launch"]);
  expect((await api.asset(t2.token)).tags).toEqual([]);

  // Download originals: one browser download per selected asset, each the uploaded bytes.
  await page.getByRole("checkbox", { name: "Select T1" }).click();
  await page.getByRole("checkbox", { name: "Select T2" }).click();
  const downloads: import("@playwright/test").Download[] = [];
  page.on("download", (d) => downloads.push(d));
  await page.getByRole("button", { name: "Download originals" }).click();
  await expect(page.getByTestId("bulk-progress")).toHaveText("Downloaded 2 of 2.");
  await expect.poll(() => downloads.length).toBe(2);
  const byName = new Map(await Promise.all(downloads.map(async (d) => [d.suggestedFilename(), fs.readFileSync((await d.path())!)] as const)));
  expect([...byName.keys()].sort()).toEqual(["T1.png", "T2.png"]);
  expect(byName.get("T1.png")!.equals(fs.readFileSync(seed.files.image))).toBe(true);
  expect(byName.get("T2.png")!.equals(fs.readFileSync(seed.files.imageB))).toBe(true);
});

test("select all on the board tags every page, minus the card taken out", async ({ page, request }) => {
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Bulk select all");
  seedAssets(board.token, 130, "All");

  await page.goto(`/w/${slug}/boards/${board.token}`);
  await hydrated(page, "[data-asset-index]");
  await expect(page.getByText("130 assets")).toBeVisible();
  await page.getByRole("button", { name: "Select all on the board (130)" }).click();
  await page.getByRole("checkbox", { name: "Select All 00001" }).click();
  await expect(page.getByTestId("selected-count")).toHaveText("129 selected (the whole board)");
  await page.getByRole("button", { name: "Add tag…" }).click();
  await page.getByRole("dialog").getByLabel("Tag").fill("everything");
  await page.getByRole("dialog").getByRole("button", { name: "Add tag" }).click();
  await expect(page.getByTestId("bulk-progress")).toHaveText("Tagged 129 of 129.", { timeout: 60_000 });

  const tagged = new Map<string, string[]>();
  for (const p of [1, 2]) {
    const res = await request.get(`/v1/${slug}/boards/${board.token}/assets?page=${p}&per_page=100`, { headers: { authorization: `Bearer ${seed.tokens.s3}` } });
    for (const a of (await res.json()).data) tagged.set(a.title, a.tags);
  }
  expect(tagged.size).toBe(130);
  expect(tagged.get("All 00001")).toEqual([]);
  expect([...tagged.entries()].filter(([, tags]) => tags.includes("everything"))).toHaveLength(129);
  // The oldest, never loaded by the grid (page 2), was tagged too.
  expect(tagged.get("All 00130")).toEqual(["everything"]);
});
