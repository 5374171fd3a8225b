import fs from "node:fs";
import path from "node:path";
import type { Page } from "@playwright/test";
import { apiClient } from "../support/api";
import { dataDir, seed } from "../support/env";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

/**
 * The files picked in an upload area show whole: each tile's name and size are inside every box
 * that clips them (the Dashboard's own scrolling list included), at the size the page gives it,
 * on the board's upload area and in the asset page's "Upload new version" panel.
 */
const slug = seed.workspaces.s3;

/** The parts of each file tile that a box around them hides (none when everything shows). */
async function clippedParts(page: Page): Promise<string[]> {
  await expect(page.locator(".uppy-Dashboard-Item").first()).toBeVisible();
  return page.locator(".uppy-Dashboard-Item-name, .uppy-Dashboard-Item-status").evaluateAll((els) =>
    els.flatMap((el) => {
      const box = el.getBoundingClientRect();
      const problems: string[] = [];
      if (box.width < 1 || box.height < 1) problems.push(`${el.className} has no room`);
      if (el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1) problems.push(`${el.className} overflows itself ("${el.textContent}")`);
      for (let up = el.parentElement; up; up = up.parentElement) {
        const style = getComputedStyle(up);
        if (style.overflowX === "visible" && style.overflowY === "visible") continue;
        const outer = up.getBoundingClientRect();
        if (box.top < outer.top - 0.5 || box.bottom > outer.bottom + 0.5 || box.left < outer.left - 0.5 || box.right > outer.right + 0.5) {
          problems.push(`${el.className} ("${el.textContent}") is cut by ${up.className || up.tagName}: ${Math.round(box.bottom - outer.bottom)} px below, ${Math.round(box.right - outer.right)} px right`);
        }
      }
      return problems;
    }),
  );
}

function namedCopy(source: string, name: string): string {
  const file = path.join(dataDir, "fixtures", name);
  fs.copyFileSync(source, file);
  return file;
}

test("picked files show their names and sizes whole in the board's upload area and the new-version panel", async ({ page, request }, testInfo) => {
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Tiles");
  const files = [namedCopy(seed.files.image, "sunrise-over-the-harbour-final.png"), namedCopy(seed.files.imageB, "b.png"), namedCopy(seed.files.imageC, "poster-v3.png")];

  await page.goto(`/w/${slug}/boards/${board.token}`);
  await page.locator("input.uppy-Dashboard-input[type=file]").first().setInputFiles(files);
  await expect(page.locator(".uppy-Dashboard-Item")).toHaveCount(3);
  await snap(page, testInfo, "board-upload-tiles");
  expect(await clippedParts(page)).toEqual([]);

  const asset = await api.upload(seed.files.image, { board: board.token, title: "Tile version" });
  await page.goto(`/w/${slug}/assets/${asset.token}`);
  await page.getByText("Upload new version").click();
  await page.locator("input.uppy-Dashboard-input[type=file]").first().setInputFiles(files[0]);
  await expect(page.locator(".uppy-Dashboard-Item")).toHaveCount(1);
  await snap(page, testInfo, "version-upload-tile");
  expect(await clippedParts(page)).toEqual([]);
});
