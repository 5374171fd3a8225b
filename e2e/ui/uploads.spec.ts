import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Page, Request } from "@playwright/test";
import { apiClient } from "../support/api";
import { seed } from "../support/env";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

const md5 = (file: string) => crypto.createHash("md5").update(fs.readFileSync(file)).digest("hex");

function record(page: Page) {
  const seen: Request[] = [];
  page.on("request", (r) => seen.push(r));
  return seen;
}

async function dropFiles(page: Page, files: string[]) {
  await page.locator("input.uppy-Dashboard-input[type=file]").first().setInputFiles(files);
  await page.getByRole("button", { name: new RegExp(`^Upload ${files.length} files?$`) }).click();
  await expect(page.locator(".uppy-StatusBar")).toContainText("Complete", { timeout: 60_000 });
}

test("s3 workspace: an image and a 6 MiB video through the Dashboard, the video in parts", async ({ page, request }, testInfo) => {
  const slug = seed.workspaces.s3;
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Dropzone S3");
  const seen = record(page);
  await page.goto(`/w/${slug}/boards/${board.token}`);
  await dropFiles(page, [seed.files.image, seed.files.video]);
  await snap(page, testInfo, "s3-dashboard-complete");

  // The image went up in one PUT; the video as parts of the multipart upload upload_prepare made.
  const storagePuts = seen.filter((r) => r.method() === "PUT" && r.url().includes("/storage/s3/"));
  expect(storagePuts.some((r) => r.url().includes("partNumber=1") && r.url().includes("uploadId="))).toBe(true);
  expect(storagePuts.some((r) => !r.url().includes("partNumber="))).toBe(true);
  const completes = seen.filter((r) => r.method() === "POST" && r.url().endsWith(`/v1/${slug}/assets/upload_complete`)).map((r) => r.postDataJSON().asset);
  expect(completes).toHaveLength(2);
  expect(completes.filter((a) => a.multipart_upload_id)).toHaveLength(1);

  const grid = page.getByRole("region", { name: "Assets" });
  await expect(grid.getByRole("link", { name: /sunrise\.png/ })).toBeVisible();
  await expect(grid.getByRole("link", { name: /clip\.mp4/ })).toBeVisible();
  await snap(page, testInfo, "s3-board-after-upload");

  // The bytes arrived whole: size and md5 as on disk.
  await grid.getByRole("link", { name: /clip\.mp4/ }).click();
  await page.waitForURL(/\/assets\/[^/]+$/);
  const token = page.url().split("/").at(-1)!;
  const asset = await api.asset(token);
  expect(asset.size).toBe(fs.statSync(seed.files.video).size);
  expect(asset.md5).toBe(md5(seed.files.video));
  expect(asset.media_type).toBe("video/mp4");
});

test("gcs workspace: resumable chunks, carrying on after a dropped chunk", async ({ page, request }, testInfo) => {
  const slug = seed.workspaces.gcs;
  const api = apiClient(request, slug, seed.tokens.gcs);
  const board = await api.createBoard("Dropzone GCS");
  const seen = record(page);
  let dropped = false;
  await page.route("**/storage/gcs/**", async (route) => {
    const req = route.request();
    // Lose the second chunk once, as a flaky network would.
    if (!dropped && req.method() === "PUT" && (req.headers()["content-range"] ?? "").startsWith("bytes 8388608-")) {
      dropped = true;
      return route.abort("connectionreset");
    }
    return route.continue();
  });
  await page.goto(`/w/${slug}/boards/${board.token}`);
  await dropFiles(page, [seed.files.big]);
  await snap(page, testInfo, "gcs-dashboard-complete");

  expect(dropped).toBe(true);
  const sessionPuts = seen.filter((r) => r.method() === "PUT" && r.url().includes("upload_id=")).map((r) => r.headers()["content-range"]);
  const total = fs.statSync(seed.files.big).size;
  expect(sessionPuts).toContain(`bytes 0-8388607/${total}`);
  expect(sessionPuts).toContain(`bytes */${total}`);
  expect(sessionPuts.filter((h) => h === `bytes 8388608-${total - 1}/${total}`).length).toBe(2);
  expect(seen.some((r) => r.method() === "POST" && r.headers()["x-goog-resumable"] === "start")).toBe(true);

  const link = page.getByRole("region", { name: "Assets" }).getByRole("link", { name: new RegExp(path.basename(seed.files.big).replace(".", "\\.")) });
  await expect(link).toBeVisible();
  await link.click();
  await page.waitForURL(/\/assets\/[^/]+$/);
  const asset = await api.asset(page.url().split("/").at(-1)!);
  expect(asset.size).toBe(total);
  expect(asset.md5).toBe(md5(seed.files.big));
  await snap(page, testInfo, "gcs-asset");
});

test("upload a new version from the asset page", async ({ page, request }, testInfo) => {
  const slug = seed.workspaces.s3;
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Versions by upload");
  const asset = await api.upload(seed.files.image, { board: board.token, title: "Poster" });
  await page.goto(`/w/${slug}/assets/${asset.token}`);
  await expect(page.getByText("head v1")).toBeVisible();
  await page.getByText("Upload new version").click();
  await page.getByLabel("Comment for the version being replaced (optional)").fill("first print run");
  await page.locator("input.uppy-Dashboard-input[type=file]").first().setInputFiles(seed.files.imageB);
  await page.getByRole("button", { name: /^Upload 1 file$/ }).click();
  await expect(page.getByText(/New version uploaded\. The previous content is kept as version 1\./)).toBeVisible({ timeout: 60_000 });
  await expect(page.getByText("head v2")).toBeVisible();
  await expect(page.getByTestId("comment-v1")).toHaveText("first print run");
  await snap(page, testInfo, "asset-after-new-version");
  expect((await api.asset(asset.token)).md5).toBe(md5(seed.files.imageB));
});
