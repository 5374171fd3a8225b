import { apiClient } from "../support/api";
import { seed } from "../support/env";
import { writeTestClip } from "../support/files";
import { expect, test } from "../support/page-test";
import { docsShot, snap } from "../support/shots";

const slug = seed.workspaces.s3;

test("the seek bar shows the storyboard's frame under the mouse, a finger and the arrow keys", async ({ page, request }, testInfo) => {
  test.setTimeout(240_000);
  // 10 s of a moving pattern, small so the encode is quick: ten tiles, one a second.
  const clip = testInfo.outputPath("storyboard-clip.mp4");
  writeTestClip(clip, { size: "480x270", seconds: 10, audio: false });
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Storyboard");
  const video = await api.upload(clip, { board: board.token, title: "Scrubbing" });
  const sprites: string[] = [];
  page.on("response", (r) => r.url().includes("/storyboard/") && sprites.push(`${r.status()} ${r.url()}`));

  await page.goto(`/w/${slug}/assets/${video.token}`);
  const bar = page.getByRole("slider", { name: "Seek" });
  await expect(bar).toBeVisible({ timeout: 180_000 });
  await expect(bar).toHaveAttribute("aria-valuemax", "10");

  // ---- mouse: hovering at three quarters shows the frame of 0:07 (the eighth tile of one row)
  const box = (await bar.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.75, box.y + box.height / 2);
  const preview = page.getByTestId("storyboard-preview");
  await expect(preview).toBeVisible();
  await expect(preview).toContainText("0:07");
  const frame = page.getByTestId("storyboard-frame");
  await expect(frame).toHaveCSS("background-position", "-1120px 0px");
  await expect(frame).toHaveCSS("width", "160px");
  await expect(frame).toHaveCSS("height", "90px");
  await expect(frame).toHaveCSS("background-image", /\/storyboard\/[A-Za-z0-9]+\/storyboard\.jpg\?token=/);
  // The sprite was read with the page's board access token, and was there.
  await expect.poll(() => sprites.find((s) => s.includes("storyboard.jpg"))).toMatch(/^200 .*token=/);
  await snap(page, testInfo, "storyboard-hover");
  await docsShot(page, "video-storyboard");
  await page.mouse.move(box.x + box.width / 2, box.y - 200);
  await expect(preview).toBeHidden();

  // ---- touch: pressing and dragging shows the frame under the finger, and lifting it seeks there
  // (touch points sent through Chromium's input pipeline, so the page gets real touch pointers)
  const cdp = await page.context().newCDPSession(page);
  const touch = (type: "touchStart" | "touchMove" | "touchEnd", fraction: number) =>
    cdp.send("Input.dispatchTouchEvent", { type, touchPoints: type === "touchEnd" ? [] : [{ x: box.x + box.width * fraction, y: box.y + box.height / 2 }] });
  await touch("touchStart", 0.1);
  await touch("touchMove", 0.2);
  await touch("touchMove", 0.35);
  await expect(preview).toContainText("0:03");
  await expect(frame).toHaveCSS("background-position", "-480px 0px");
  await touch("touchEnd", 0.35);
  await expect(preview).toBeHidden();
  await expect.poll(() => page.getByTestId("hls-player").evaluate((v: HTMLVideoElement) => v.currentTime)).toBeGreaterThan(3.3);
  expect(await page.getByTestId("hls-player").evaluate((v: HTMLVideoElement) => v.currentTime)).toBeLessThan(3.8);

  // ---- keyboard: focused, each arrow press seeks 5 s and shows the frame of where it went
  await bar.focus();
  await page.keyboard.press("Home");
  await page.keyboard.press("ArrowRight");
  await expect(preview).toContainText("0:05");
  await expect(frame).toHaveCSS("background-position", "-800px 0px");
  await expect(bar).toHaveAttribute("aria-valuetext", "0:05 of 0:10");
  // Escape hides the preview and stays on the page (with no preview shown, Escape goes back to the board).
  await page.keyboard.press("Escape");
  await expect(preview).toBeHidden();
  await expect(page).toHaveURL(new RegExp(`/assets/${video.token}$`));
});
