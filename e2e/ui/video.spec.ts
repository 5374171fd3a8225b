import { apiClient } from "../support/api";
import { seed } from "../support/env";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

const slug = seed.workspaces.s3;

test.describe("video", () => {
  test("an uploaded video shows processing, reaches ready and plays past 2 s with the board token", async ({ page, request }, testInfo) => {
    test.setTimeout(240_000);
    const api = apiClient(request, slug, seed.tokens.s3);
    const board = await api.createBoard("Screening room");
    const video = await api.upload(seed.files.video, { board: board.token, title: "Test pattern" });
    const media: string[] = [];
    page.on("request", (r) => r.url().includes("/media/") && media.push(r.url()));

    await page.goto(`/w/${slug}/assets/${video.token}`);
    const player = page.getByTestId("hls-player");
    await expect(player.or(page.getByTestId("encode-status"))).toBeVisible();
    await snap(page, testInfo, "video-processing-or-ready");
    await expect(player).toBeVisible({ timeout: 180_000 });

    await player.evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play();
    });
    await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 60_000 }).toBeGreaterThan(2);
    await snap(page, testInfo, "video-playing");
    // Playlists and segments were read with the page's board access token, not a signed link or an API token.
    const stream = media.filter((u) => u.includes("/stream"));
    expect(stream.length).toBeGreaterThan(1);
    for (const u of stream) expect(new URL(u).searchParams.get("token") ?? new URL(u).searchParams.get("sig")).toBeTruthy();
    expect(stream.some((u) => new URL(u).searchParams.has("token"))).toBe(true);
    expect(media.join(" ")).not.toContain(seed.tokens.s3);
  });

  test("a failed encode offers a retry that queues a new one", async ({ page, request }, testInfo) => {
    test.setTimeout(180_000);
    const api = apiClient(request, slug, seed.tokens.s3);
    const board = await api.createBoard("Broken reel");
    const broken = await api.upload(seed.files.notAVideo, { board: board.token, title: "Not really a video", mediaType: "video/mp4" });
    await page.goto(`/w/${slug}/assets/${broken.token}`);
    const retry = page.getByRole("button", { name: "Retry encode" });
    await expect(retry).toBeVisible({ timeout: 150_000 });
    // The reason is shown beside the failure: the asset's encode_error message and code.
    await expect(page.getByTestId("encode-error")).toContainText("The video encode failed: ");
    await expect(page.getByTestId("encode-error").locator("code")).toHaveText(/^[a-z_]+$/);
    await snap(page, testInfo, "encode-failed");
    const answered = page.waitForResponse((r) => r.url().endsWith(`/assets/${broken.token}/retry_video_processing`));
    await retry.click();
    expect((await answered).status()).toBe(200);
  });
});
