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

/**
 * Holds the page's scripts back until the returned function is called: until then the server's
 * HTML is all the page has, with no handlers attached (what a slow connection shows first).
 */
export async function holdScriptsBack(page: Page): Promise<() => void> {
  let release = () => {};
  const scriptsMayLoad = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/_next/static/chunks/**", async (route) => {
    await scriptsMayLoad;
    await route.continue();
  });
  return release;
}
