import { apiClient } from "../support/api";
import { seed } from "../support/env";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

test("compare two image versions: swipe (drag and keys), overlay (opacity) and the metadata diff", async ({ page, request }, testInfo) => {
  const slug = seed.workspaces.s3;
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Compare modes board");
  const asset = await api.upload(seed.files.image, { board: board.token, title: "Swipe me" });
  const thumbnailsMade = () => expect.poll(async () => (await api.asset(asset.token)).thumbnails.length, { timeout: 30_000 }).toBeGreaterThan(0);
  await thumbnailsMade();
  // The comment lands on the snapshot being replaced (v1); the new head (v2) has none.
  await api.newVersion(asset.token, seed.files.imageB, "orange original");
  await thumbnailsMade();

  await page.goto(`/w/${slug}/assets/${asset.token}`);
  await page.getByTestId("version-1").getByLabel("Compare").check();
  await page.getByTestId("version-2").getByLabel("Compare").check();
  const panel = page.getByRole("region", { name: "Comparing v1 and v2 (head)" });
  await expect(panel.getByRole("button", { name: "Side by side" })).toHaveAttribute("aria-pressed", "true");

  // ---- swipe: the divider follows the keys and a drag; v1 shows left of it
  await panel.getByRole("button", { name: "Swipe" }).click();
  const divider = panel.getByRole("slider", { name: /Swipe divider/ });
  const before = panel.getByTestId("swipe-before");
  await expect(divider).toHaveAttribute("aria-valuenow", "50");
  await divider.focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
  await expect(divider).toHaveAttribute("aria-valuenow", "53");
  await page.keyboard.press("Shift+ArrowLeft");
  await expect(divider).toHaveAttribute("aria-valuenow", "43");
  await expect(before).toHaveCSS("clip-path", "inset(0px 57% 0px 0px)");
  await page.keyboard.press("End");
  await expect(divider).toHaveAttribute("aria-valuenow", "100");
  await page.keyboard.press("Home");
  await expect(divider).toHaveAttribute("aria-valuenow", "0");
  const box = (await panel.getByTestId("swipe-compare").boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.1, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.75, box.y + box.height / 2, { steps: 8 });
  await page.mouse.up();
  await expect(divider).toHaveAttribute("aria-valuenow", "75");
  await expect(before).toHaveCSS("clip-path", "inset(0px 25% 0px 0px)");
  await snap(page, testInfo, "compare-swipe");

  // ---- overlay: v2 over v1 at the slider's opacity
  await panel.getByRole("button", { name: "Overlay" }).click();
  const top = panel.getByTestId("overlay-top");
  await expect(top).toHaveCSS("opacity", "0.5");
  await panel.getByLabel("Opacity of v2 (head)").fill("80");
  await expect(top).toHaveCSS("opacity", "0.8");
  await panel.getByLabel("Opacity of v2 (head)").focus();
  await page.keyboard.press("ArrowLeft");
  await expect(top).toHaveCSS("opacity", "0.79");
  await snap(page, testInfo, "compare-overlay");

  // ---- the metadata, field by field from v1 to v2
  const row = (label: string) => panel.getByRole("row", { name: new RegExp(`^${label}`) });
  await expect(row("MD5")).toHaveAttribute("data-change", "changed");
  await expect(row("Comment")).toHaveAttribute("data-change", "removed");
  await expect(row("Comment")).toContainText("orange original");
  await expect(row("Media type")).toHaveAttribute("data-change", "unchanged");
  await expect(row("Title")).toHaveAttribute("data-change", "unchanged");
  await expect(panel.getByTestId("diff-summary")).toContainText(/1 removed/);
});
