import type { Page, TestInfo } from "@playwright/test";

/** A full-page screenshot kept as an artifact: test-results/<test>/<name>.png, and in the HTML report. */
export async function snap(page: Page, testInfo: TestInfo, name: string) {
  // Let pictures whose URL just changed finish loading, so the shot shows what a person would see.
  await page
    .waitForFunction(() => Array.from(document.images).every((img) => img.loading === "lazy" || img.complete), undefined, { timeout: 5000 })
    .catch(() => undefined);
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}
