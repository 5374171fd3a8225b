import fs from "node:fs";
import { fileURLToPath } from "node:url";
import type { Page, TestInfo } from "@playwright/test";

/** Let pictures whose URL just changed finish loading, so a shot shows what a person would see. */
async function imagesSettled(page: Page) {
  await page
    .waitForFunction(() => Array.from(document.images).every((img) => img.loading === "lazy" || img.complete), undefined, { timeout: 5000 })
    .catch(() => undefined);
}

/** A full-page screenshot kept as an artifact: test-results/<test>/<name>.png, and in the HTML report. */
export async function snap(page: Page, testInfo: TestInfo, name: string) {
  await imagesSettled(page);
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}

const docsShotDir = fileURLToPath(new URL("../../docs/ui/", import.meta.url));

/** True when this run writes docs/ui/*.png: only on request, so ordinary and CI runs leave the tree clean. */
export const writesDocsShots = process.env.EASEL_E2E_DOCS_SHOTS === "1";

/**
 * The screenshot of a page that docs/ui.md embeds: docs/ui/<name>.png, the viewport only (what a
 * person sees first, and a small file). Written only with EASEL_E2E_DOCS_SHOTS=1.
 */
export async function docsShot(page: Page, name: string) {
  if (!writesDocsShots) return;
  await imagesSettled(page);
  fs.mkdirSync(docsShotDir, { recursive: true });
  await page.screenshot({ path: `${docsShotDir}${name}.png`, animations: "disabled", caret: "hide" });
}
