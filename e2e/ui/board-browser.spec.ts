import { apiClient } from "../support/api";
import { seed } from "../support/env";
import { holdScriptsBack } from "../support/hydrated";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

const slug = seed.workspaces.s3;

test("browse a board tree with states, open boards and see their assets", async ({ page, request }, testInfo) => {
  const api = apiClient(request, slug, seed.tokens.s3);
  const brand = await api.createBoard("Brand");
  const logos = await api.createBoard("Logos", brand.token);
  const year = await api.createBoard("Logos 2019", logos.token);
  await api.updateBoard(year.token, { state: "archived" });
  await api.upload(seed.files.image, { board: logos.token, title: "Wordmark sunrise" });

  await page.goto(`/w/${slug}/boards`);
  const tree = page.getByRole("navigation", { name: "Boards" });
  await tree.getByRole("button", { name: "Show sub-boards of Brand" }).click();
  await tree.getByRole("button", { name: "Show sub-boards of Logos" }).click();
  const archived = tree.getByRole("treeitem", { name: "Logos 2019" });
  await expect(archived.getByText("archived")).toBeVisible();
  await snap(page, testInfo, "board-tree");

  await tree.getByRole("link", { name: "Logos", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Logos" })).toBeVisible();
  const card = page.getByRole("link", { name: /Wordmark sunrise/ });
  await expect(card).toBeVisible();
  // The thumbnail sits beside the card's link (which holds only the title), in the same grid cell.
  await expect(page.getByRole("gridcell").filter({ has: card }).locator("img")).toHaveAttribute("loading", "lazy");
  await snap(page, testInfo, "board-with-assets");

  // The tree stays open down to the board a page shows, after a reload too.
  await page.reload();
  await expect(tree.getByRole("link", { name: "Logos", exact: true })).toHaveAttribute("aria-current", "page");
  await expect(tree.getByRole("link", { name: "Logos 2019" })).toBeVisible();

  await tree.getByRole("link", { name: "Logos 2019" }).click();
  await expect(page.getByText("No assets on this board yet")).toBeVisible();
  await expect(page.getByText(/This board is archived/)).toBeVisible();
  await snap(page, testInfo, "empty-archived-board");

  await page.goto(`/w/${slug}/boards/${brand.token}`);
  await page.getByLabel("Include sub-boards").check();
  await expect(page.getByRole("link", { name: /Wordmark sunrise/ })).toBeVisible();
});

test("the board's filter and sub-boards switch stay disabled until the page is live", async ({ page, request }) => {
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Filter before hydration");
  await api.upload(seed.files.image, { board: board.token, title: "Harbour at dusk" });
  await api.upload(seed.files.image, { board: board.token, title: "Mountain pass" });

  // The server's HTML is all there is until release(): text typed into it would never reach the list.
  const release = await holdScriptsBack(page);
  await page.goto(`/w/${slug}/boards/${board.token}`, { waitUntil: "commit" });
  const filter = page.getByLabel("Filter this board");
  const subBoards = page.getByLabel("Include sub-boards");
  await expect(filter).toBeDisabled();
  await expect(subBoards).toBeDisabled();
  release();
  await expect(filter).toBeEnabled();
  await expect(subBoards).toBeEnabled();
  await filter.fill("harbour");
  await filter.press("Enter");
  await expect(page.getByRole("link", { name: /Harbour at dusk/ })).toBeVisible();
  await expect(page.getByRole("link", { name: /Mountain pass/ })).toHaveCount(0);
});

test("create, rename and archive a board", async ({ page }, testInfo) => {
  await page.goto(`/w/${slug}/boards`);
  await page.getByLabel("New board").fill("Spring launch");
  await page.getByRole("button", { name: "Create", exact: true }).first().click();
  await expect(page.getByRole("heading", { level: 1, name: "Spring launch" })).toBeVisible();

  await page.getByLabel("New sub-board").fill("Social posts");
  await page.getByRole("button", { name: "Create", exact: true }).last().click();
  await expect(page.getByRole("heading", { level: 1, name: "Social posts" })).toBeVisible();
  await page.getByRole("link", { name: "↑ Parent board" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Spring launch" })).toBeVisible();

  await page.getByRole("button", { name: "Rename or change state" }).click();
  const dialog = page.getByRole("dialog", { name: "Edit board" });
  await dialog.getByLabel("Title").fill("Spring launch 2025");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Spring launch 2025" })).toBeVisible();

  await page.getByRole("button", { name: "Archive" }).click();
  const header = page.getByRole("main");
  await expect(header.getByText("archived", { exact: true }).first()).toBeVisible();
  await expect(page.getByRole("button", { name: "Restore" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Boards" }).getByText("archived")).toBeVisible();
  await snap(page, testInfo, "archived-board");
});

test("search and ai_search find assets; the workspace switcher changes workspace", async ({ page, request }, testInfo) => {
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Search corpus");
  await api.upload(seed.files.imageB, { board: board.token, title: "Harbour panorama" });

  await page.goto(`/w/${slug}/search`);
  await page.getByLabel(/Words in titles/).fill("harbour");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/q=harbour/);
  await expect(page.getByRole("link", { name: /Harbour panorama/ })).toBeVisible();
  await snap(page, testInfo, "search");

  await page.getByLabel("AI search").check();
  await page.getByLabel(/Describe what you are looking for/).fill("harbour images");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/mode=ai/);
  await expect(page.getByText(/How the query was read: /)).toBeVisible();
  await expect(page.getByRole("link", { name: /Harbour panorama/ })).toBeVisible();
  await snap(page, testInfo, "ai-search");

  await page.getByLabel("Workspace", { exact: true }).selectOption(seed.workspaces.gcs);
  await expect(page).toHaveURL(new RegExp(`/w/${seed.workspaces.gcs}/search$`));
});
