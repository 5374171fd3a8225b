import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page, Route } from "@playwright/test";
import { apiClient } from "../support/api";
import { seed } from "../support/env";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

const MiB = 1024 * 1024;
const PART = 8 * MiB;
const SIZE = 40 * MiB;

/** A 40 MiB file of random bytes (five 8 MiB parts or chunks) and its md5. */
function bigFile(): { file: string; md5: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "easel-resume-"));
  const bytes = crypto.randomBytes(SIZE);
  const file = path.join(dir, "footage.bin");
  fs.writeFileSync(file, bytes);
  return { file, md5: crypto.createHash("md5").update(bytes).digest("hex") };
}

type Phase = "before" | "after";
type Sent = { phase: Phase; method: string; what: string; status?: number };

/**
 * Watches the storage requests the page makes, across the reload. Every request to storage
 * passes through `route`: one chosen request (`holdWhen`) is held back before the reload, as a
 * slow network would hold it, so the reload lands mid-upload; every other request goes on to
 * the server and is recorded with the status the server answered.
 */
function storageWatch(page: Page, glob: string, holdWhen: (method: string, what: string) => boolean, whatOf: (url: string, headers: Record<string, string>) => string) {
  const sent: Sent[] = [];
  const state = { phase: "before" as Phase, held: null as Route | null };
  void page.route(glob, async (route) => {
    const req = route.request();
    const what = whatOf(req.url(), req.headers());
    if (state.phase === "before" && holdWhen(req.method(), what)) {
      state.held = route; // never sent: the reload abandons it
      return;
    }
    const entry: Sent = { phase: state.phase, method: req.method(), what };
    sent.push(entry);
    try {
      const res = await route.fetch({ maxRedirects: 0 });
      entry.status = res.status();
      await route.fulfill({ response: res });
    } catch (err) {
      // The reload cut the request off on its way: the server may have seen part of it, but stored nothing.
      entry.status = -1;
      if (!/Target page, context or browser has been closed|Request context disposed|aborted/i.test(String(err))) throw err;
    }
  });
  return { sent, state };
}

async function startUpload(page: Page, file: string) {
  await page.locator("input.uppy-Dashboard-input[type=file]").first().setInputFiles(file);
  await page.getByRole("button", { name: /^Upload 1 file$/ }).click();
}

/** Reloads, waits for Golden Retriever to bring the queue back (and for `message`, if given), and resumes it. */
async function reloadAndResume(page: Page, state: { phase: Phase }, message?: RegExp) {
  state.phase = "after";
  await page.reload();
  await expect(page.locator(".uppy-Dashboard")).toContainText(/restored all files|resume the upload/i);
  if (message) await expect(page.locator(".uppy-Dashboard").getByRole("alert").filter({ hasText: message }).first()).toBeVisible();
  await expect(page.locator(".uppy-Dashboard-Item")).toHaveCount(1);
  const completed = page.waitForResponse((r) => r.url().endsWith("/assets/upload_complete") && r.request().method() === "POST", { timeout: 120_000 });
  await page.locator(".uppy-StatusBar-actionBtn--upload").click();
  const res = await completed;
  expect(res.status()).toBe(200);
  await expect(page.locator(".uppy-StatusBar")).toContainText("Complete", { timeout: 60_000 });
  return ((await res.json()) as { data: { token: string } }).data.token;
}

test("s3: a reload in the middle of a 40 MiB multipart upload; afterwards only the missing parts go up", async ({ page, request }, testInfo) => {
  test.setTimeout(180_000);
  const { file, md5 } = bigFile();
  const slug = seed.workspaces.s3;
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Resume S3");
  const partOf = (url: string) => {
    const u = new URL(url);
    return u.searchParams.has("uploadId") ? (u.searchParams.get("partNumber") ?? "list") : "single";
  };
  // Parts 1 and 2 go up; part 3 is held until the reload.
  const { sent, state } = storageWatch(page, "**/storage/s3/**", (method, what) => method === "PUT" && what === "3", (url) => partOf(url));

  await page.goto(`/w/${slug}/boards/${board.token}`);
  await startUpload(page, file);
  await expect.poll(() => state.held !== null, { timeout: 60_000 }).toBe(true);
  await snap(page, testInfo, "s3-before-reload");
  const storedBefore = sent.filter((s) => s.phase === "before" && s.method === "PUT" && s.status === 200).map((s) => s.what);
  expect(storedBefore).toEqual(["1", "2"]);

  const token = await reloadAndResume(page, state);
  await snap(page, testInfo, "s3-after-resume");

  const after = sent.filter((s) => s.phase === "after");
  // After the reload: one listing of the stored parts, then only parts 3..5, each once.
  expect(after.filter((s) => s.what === "list").map((s) => [s.method, s.status])).toEqual([["GET", 200]]);
  expect(after.filter((s) => s.method === "PUT").map((s) => [s.what, s.status])).toEqual([
    ["3", 200],
    ["4", 200],
    ["5", 200],
  ]);
  // Across the reload the server stored every part exactly once.
  const stored = sent.filter((s) => s.method === "PUT" && s.status === 200).map((s) => s.what);
  expect(stored.sort()).toEqual(["1", "2", "3", "4", "5"]);

  const asset = await api.asset(token);
  expect(asset.size).toBe(SIZE);
  expect(asset.md5).toBe(md5);
});

test("gcs: a reload in the middle of a 40 MiB resumable upload; afterwards it goes on from the byte storage holds", async ({ page, request }, testInfo) => {
  test.setTimeout(180_000);
  const { file, md5 } = bigFile();
  const slug = seed.workspaces.gcs;
  const api = apiClient(request, slug, seed.tokens.gcs);
  const board = await api.createBoard("Resume GCS");
  const rangeOf = (_url: string, headers: Record<string, string>) => headers["content-range"] ?? "";
  // Chunks 1 and 2 (bytes 0..16 MiB) go up; the third is held until the reload.
  const third = `bytes ${2 * PART}-${3 * PART - 1}/${SIZE}`;
  const { sent, state } = storageWatch(page, "**/storage/gcs/**", (method, what) => method === "PUT" && what === third, rangeOf);

  await page.goto(`/w/${slug}/boards/${board.token}`);
  await startUpload(page, file);
  await expect.poll(() => state.held !== null, { timeout: 60_000 }).toBe(true);
  await snap(page, testInfo, "gcs-before-reload");
  const before = sent.filter((s) => s.phase === "before" && s.method === "PUT").map((s) => [s.what, s.status]);
  expect(before).toEqual([
    [`bytes 0-${PART - 1}/${SIZE}`, 308],
    [`bytes ${PART}-${2 * PART - 1}/${SIZE}`, 308],
  ]);

  const token = await reloadAndResume(page, state);
  await snap(page, testInfo, "gcs-after-resume");

  // After the reload: no new session; the saved one is asked what it holds, then chunks 3..5 go up.
  const after = sent.filter((s) => s.phase === "after");
  expect(after.filter((s) => s.method === "POST")).toEqual([]);
  // (GETs are the new asset's pictures, read once it exists.)
  expect(after.filter((s) => s.method !== "GET").map((s) => [s.method, s.what, s.status])).toEqual([
    ["PUT", `bytes */${SIZE}`, 308],
    ["PUT", third, 308],
    ["PUT", `bytes ${3 * PART}-${4 * PART - 1}/${SIZE}`, 308],
    ["PUT", `bytes ${4 * PART}-${SIZE - 1}/${SIZE}`, 200],
  ]);

  const asset = await api.asset(token);
  expect(asset.size).toBe(SIZE);
  expect(asset.md5).toBe(md5);
});

test("s3: a reservation that expired by the reload starts over cleanly, with a message", async ({ page, request }) => {
  test.setTimeout(180_000);
  const { file, md5 } = bigFile();
  const slug = seed.workspaces.s3;
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Resume expired");
  const uploadIdOf = (url: string) => new URL(url).searchParams.get("uploadId") ?? "";
  const { sent, state } = storageWatch(page, "**/storage/s3/**", (method, what) => method === "PUT" && what.endsWith(":2"), (url) => `${uploadIdOf(url)}:${new URL(url).searchParams.get("partNumber") ?? "list"}`);
  const prepares: string[] = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().endsWith("/assets/upload_prepare")) prepares.push(state.phase);
  });

  await page.goto(`/w/${slug}/boards/${board.token}`);
  await startUpload(page, file);
  await expect.poll(() => state.held !== null, { timeout: 60_000 }).toBe(true);
  // The tab's saved reservation reaches its expiry while the page is away.
  const aged = await page.evaluate(() => {
    let n = 0;
    for (const key of Object.keys(sessionStorage).filter((k) => k.startsWith("easel-upload-ticket:"))) {
      const record = JSON.parse(sessionStorage.getItem(key)!);
      record.ticket.expires_at = new Date(Date.now() - 60_000).toISOString();
      sessionStorage.setItem(key, JSON.stringify(record));
      n++;
    }
    return n;
  });
  expect(aged).toBe(1);

  const token = await reloadAndResume(page, state, /footage\.bin: its upload reservation has expired, so it starts over/);

  // A new reservation, a new multipart upload, every part of it sent once; the old upload is left to expire.
  expect(prepares).toEqual(["before", "after"]);
  const before = sent.filter((s) => s.phase === "before" && s.method === "PUT");
  const after = sent.filter((s) => s.phase === "after" && s.method === "PUT");
  const oldUpload = before[0].what.split(":")[0];
  const newUpload = after[0].what.split(":")[0];
  expect(newUpload).not.toBe(oldUpload);
  expect(after.map((s) => [s.what, s.status])).toEqual([1, 2, 3, 4, 5].map((n) => [`${newUpload}:${n}`, 200]));
  expect(sent.filter((s) => s.phase === "after" && s.what.endsWith(":list"))).toEqual([]);

  const asset = await api.asset(token);
  expect(asset.md5).toBe(md5);
});
