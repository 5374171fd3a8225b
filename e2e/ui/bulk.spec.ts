import fs from "node:fs";
import { apiClient } from "../support/api";
import { seed } from "../support/env";
import { seedAssets } from "../support/grid-seed";
import { hydrated } from "../support/hydrated";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

const slug = seed.workspaces.s3;

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
