import type { Locator, Page } from "@playwright/test";
import { apiClient } from "../support/api";
import { seed } from "../support/env";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

type Rgb = [number, number, number];

/**
 * The colour an element shows behind its content: its own background, or the first ancestor's
 * that is not transparent, as sRGB bytes. Computed colours may be in any CSS colour space
 * (Tailwind's palette is oklch), so the browser paints each one on a canvas and reads it back.
 */
function shownBackground(el: Element): [number, number, number] {
  const ctx = document.createElement("canvas").getContext("2d", { willReadFrequently: true })!;
  const toRgb = (color: string) => {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = color;
    ctx.fillRect(0, 0, 1, 1);
    return Array.from(ctx.getImageData(0, 0, 1, 1).data);
  };
  for (let node: Element | null = el; node; node = node.parentElement) {
    const [r, g, b, a] = toRgb(getComputedStyle(node).backgroundColor);
    if (a > 0) return [r, g, b];
  }
  return [255, 255, 255];
}

function shownText(el: Element): [number, number, number] {
  const ctx = document.createElement("canvas").getContext("2d", { willReadFrequently: true })!;
  ctx.fillStyle = getComputedStyle(el).color;
  ctx.fillRect(0, 0, 1, 1);
  const [r, g, b] = Array.from(ctx.getImageData(0, 0, 1, 1).data);
  return [r, g, b];
}

const background = (l: Locator) => l.evaluate(shownBackground) as Promise<Rgb>;
const textColour = (l: Locator) => l.evaluate(shownText) as Promise<Rgb>;

/** WCAG 2 relative luminance and contrast ratio. */
const luminance = ([r, g, b]: Rgb) => {
  const lin = (c: number) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
};
const contrast = (a: Rgb, b: Rgb) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

async function boardWithAsset(page: Page, request: Parameters<typeof apiClient>[0], title: string) {
  const slug = seed.workspaces.s3;
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard(title);
  await api.upload(seed.files.image, { board: board.token, title: "Night shot" });
  await page.goto(`/w/${slug}/boards/${board.token}`);
  const card = page.getByRole("grid", { name: "Assets" }).getByRole("gridcell").first();
  await expect(card).toBeVisible();
  await expect(page.locator(".uppy-Dashboard-inner")).toBeVisible();
  return card;
}

for (const scheme of ["dark", "light"] as const) {
  test.describe(`colour scheme: ${scheme}`, () => {
    test.use({ colorScheme: scheme });

    test(`the page, the board grid and the uploader follow a ${scheme} system setting, with readable text`, async ({ page, request }, testInfo) => {
      const card = await boardWithAsset(page, request, `Scheme ${scheme}`);
      const isDark = (rgb: Rgb) => luminance(rgb) < 0.05;
      const isLight = (rgb: Rgb) => luminance(rgb) > 0.8;
      const expectScheme = (rgb: Rgb, what: string) => expect(scheme === "dark" ? isDark(rgb) : isLight(rgb), `${what}: rgb(${rgb.join(", ")})`).toBe(true);

      const pageBg = await background(page.locator("body"));
      const cardBg = await background(card);
      const uppyBg = await background(page.locator(".uppy-Dashboard-inner"));
      expectScheme(pageBg, "page background");
      expectScheme(cardBg, "asset card in the board grid");
      expectScheme(uppyBg, "Uppy dashboard");
      await expect(page.locator(".uppy-Dashboard[data-uppy-theme]")).toHaveAttribute("data-uppy-theme", scheme);

      // Body text and secondary text against what they stand on: WCAG AA (4.5:1) for normal text.
      const heading = page.getByRole("heading", { name: "Upload to this board" });
      const pairs: [string, Locator][] = [
        ["body text", page.locator("body")],
        ["section heading", heading],
        ["asset count (secondary text)", page.locator("section[aria-label=Assets] p[aria-live]")],
      ];
      for (const [what, l] of pairs) {
        const ratio = contrast(await textColour(l), await background(l));
        expect(ratio, `${what} contrast ${ratio.toFixed(2)}`).toBeGreaterThanOrEqual(4.5);
      }
      await snap(page, testInfo, `board-${scheme}`);
    });
  });
}
