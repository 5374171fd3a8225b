import type { Page } from "@playwright/test";

/**
 * Waits until React has hydrated the element `selector` names (React keeps its props on the DOM
 * node once it owns it). Keys pressed before that reach server-rendered HTML with no handlers:
 * Ctrl+End would scroll the grid natively instead of moving focus. Not `networkidle`: a page
 * holding a live-updates stream never goes idle.
 */
export async function hydrated(page: Page, selector: string) {
  await page.waitForFunction((sel) => {
    const el = document.querySelector(sel);
    return !!el && Object.keys(el).some((k) => k.startsWith("__reactProps$"));
  }, selector);
}
