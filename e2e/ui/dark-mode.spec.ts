import type { Locator, Page } from "@playwright/test";
import { apiClient } from "../support/api";
import { seed } from "../support/env";
import { newRequest } from "../support/grid-seed";
import { hydrated } from "../support/hydrated";
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

/**
 * The colour that marks an element's edge against what is around it: its first visible box-shadow
 * (a Tailwind ring is one), else its own background; null when it has neither.
 */
function edgeColour(el: Element): [number, number, number] | null {
  const ctx = document.createElement("canvas").getContext("2d", { willReadFrequently: true })!;
  const toRgba = (color: string) => {
    ctx.clearRect(0, 0, 1, 1);
    ctx.fillStyle = "transparent";
    ctx.fillStyle = color;
    ctx.fillRect(0, 0, 1, 1);
    return Array.from(ctx.getImageData(0, 0, 1, 1).data);
  };
  const style = getComputedStyle(el);
  const shadows = style.boxShadow === "none" ? [] : (style.boxShadow.match(/(?:rgba?|hsla?|oklch|oklab|lch|lab|color)\([^()]*\)|#[0-9a-fA-F]{3,8}\b/g) ?? []);
  for (const c of [...shadows, style.backgroundColor]) {
    const [r, g, b, a] = toRgba(c);
    if (a > 0) return [r, g, b];
  }
  return null;
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

const isDark = (rgb: Rgb) => luminance(rgb) < 0.05;
const isLight = (rgb: Rgb) => luminance(rgb) > 0.8;

/** Text against what it stands on: WCAG AA (4.5:1) for normal text. */
async function expectReadable(pairs: [string, Locator][]) {
  for (const [what, l] of pairs) {
    const ratio = contrast(await textColour(l), await background(l));
    expect(ratio, `${what} contrast ${ratio.toFixed(2)}`).toBeGreaterThanOrEqual(4.5);
  }
}

/** The player's edge (its ring, else its own black) stands out from what is behind it, so the frame shows on any surface. */
async function expectFramed(player: Locator, surface: Rgb, where: string) {
  const edge = (await player.evaluate(edgeColour)) as Rgb | null;
  expect(edge, `${where}: the player has a visible edge`).not.toBeNull();
  const ratio = contrast(edge!, surface);
  expect(ratio, `${where}: the player's edge rgb(${edge!.join(", ")}) against rgb(${surface.join(", ")}): ${ratio.toFixed(2)}`).toBeGreaterThanOrEqual(1.5);
}

/** One encoded video on a board for the player tests of both schemes (an encode is slow; one is enough). */
let reel: { board: string; video: string } | null = null;
test.beforeAll(async () => {
  test.setTimeout(240_000);
  const api = apiClient(await newRequest(), seed.workspaces.s3, seed.tokens.s3);
  const board = await api.createBoard("Scheme reel");
  await api.upload(seed.files.image, { board: board.token, title: "Scheme still" });
  const video = await api.upload(seed.files.video, { board: board.token, title: "Scheme clip" });
  await expect.poll(async () => (await api.asset(video.token)).stream_url, { timeout: 200_000 }).toBeTruthy();
  reel = { board: board.token, video: video.token };
});

for (const scheme of ["dark", "light"] as const) {
  test.describe(`colour scheme: ${scheme}`, () => {
    test.use({ colorScheme: scheme });

    test(`the page, the board grid and the uploader follow a ${scheme} system setting, with readable text`, async ({ page, request }, testInfo) => {
      const card = await boardWithAsset(page, request, `Scheme ${scheme}`);
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

    test(`the asset page's video player and the lightbox in a ${scheme} system setting`, async ({ page }, testInfo) => {
      const slug = seed.workspaces.s3;
      const expectScheme = (rgb: Rgb, what: string) => expect(scheme === "dark" ? isDark(rgb) : isLight(rgb), `${what}: rgb(${rgb.join(", ")})`).toBe(true);

      // The asset page: the page and the player's surroundings take the scheme; the frame shows on them.
      await page.goto(`/w/${slug}/assets/${reel!.video}`);
      const player = page.getByTestId("hls-player");
      await expect(player).toBeVisible();
      const pageBg = await background(page.locator("body"));
      expectScheme(pageBg, "asset page background");
      const around = await background(player.locator("xpath=.."));
      expectScheme(around, "behind the player");
      await expectFramed(player, around, "asset page");
      await expectReadable([
        ["asset title", page.getByRole("heading", { level: 1, name: "Scheme clip" })],
        ["detail label (secondary text)", page.locator("dt").filter({ hasText: "Size" })],
        ["details heading", page.getByRole("heading", { name: "Details" })],
      ]);
      await snap(page, testInfo, `asset-player-${scheme}`);

      // The lightbox is a dark stage in either scheme (pictures and video are judged on dark), so the
      // browser's own parts in it (the video's controls, scrollbars, focus rings) are drawn for dark too.
      await page.goto(`/w/${slug}/boards/${reel!.board}`);
      await hydrated(page, "[data-asset-index]");
      await page.getByRole("button", { name: "Preview Scheme clip" }).click();
      const box = page.getByTestId("lightbox");
      const boxPlayer = box.getByTestId("hls-player");
      await expect(boxPlayer).toBeVisible();
      const stage = await background(box);
      expect(isDark(stage), `lightbox stage rgb(${stage.join(", ")})`).toBe(true);
      await expectFramed(boxPlayer, await background(boxPlayer.locator("xpath=..")), "lightbox");
      expect(await box.evaluate((el) => getComputedStyle(el).colorScheme), "the lightbox's colour scheme").toBe("dark");
      await expectReadable([
        ["lightbox title", box.getByRole("heading", { name: "Scheme clip" })],
        ["lightbox position", box.getByTestId("lightbox-position")],
        ["lightbox link", box.getByRole("link", { name: "Open asset page" })],
        ["lightbox next button", box.getByRole("button", { name: "Next asset" })],
      ]);
      // The page behind is dimmed in either scheme, so the stage reads as on top of it.
      const backdrop = await box.evaluate((el) => {
        const ctx = document.createElement("canvas").getContext("2d")!;
        ctx.fillStyle = getComputedStyle(el, "::backdrop").backgroundColor;
        ctx.fillRect(0, 0, 1, 1);
        return Array.from(ctx.getImageData(0, 0, 1, 1).data);
      });
      expect(isDark(backdrop.slice(0, 3) as Rgb) && backdrop[3] >= 128, `backdrop rgba(${backdrop.join(", ")})`).toBe(true);
      await snap(page, testInfo, `lightbox-player-${scheme}`);
    });
  });
}
