import { execFileSync } from "node:child_process";
import type { Page } from "@playwright/test";
import { apiClient } from "../support/api";
import { dataDir, seed } from "../support/env";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

const slug = seed.workspaces.s3;

async function dropFiles(page: Page, files: string[]) {
  await page.locator("input.uppy-Dashboard-input[type=file]").first().setInputFiles(files);
  await page.getByRole("button", { name: new RegExp(`^Upload ${files.length} files?$`) }).click();
  await expect(page.locator(".uppy-StatusBar")).toContainText("Complete", { timeout: 60_000 });
}

test.describe("members", () => {
  test("an admin invites a viewer, who browses and plays but cannot write; promoted to editor, they upload", async ({ page, browser, request }, testInfo) => {
    test.setTimeout(300_000);
    const api = apiClient(request, slug, seed.tokens.s3);
    const board = await api.createBoard("Screening for guests");
    const video = await api.upload(seed.files.video, { board: board.token, title: "Guest reel" });
    const email = `viewer-${Date.now().toString(36)}@easel.test`;

    // The admin (the seeded owner) invites by email and gets a link to copy.
    await page.goto(`/w/${slug}/members`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Create invitation link" }).click();
    const link = await page.getByLabel("Invitation link").inputValue();
    expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]{43}$/);
    await expect(page.getByTestId(`invitation-${email}`)).toContainText("viewer");
    await snap(page, testInfo, "members-invited");

    // The viewer opens it in a browser of their own (no cookies), sets a password and lands in the workspace.
    const guest = await browser.newContext({ storageState: { cookies: [], origins: [] } });
    const viewer = await guest.newPage();
    await viewer.goto(link);
    await expect(viewer.getByTestId("invited-role")).toHaveText("viewer");
    await viewer.getByLabel("Password", { exact: true }).fill("guest password 1");
    await viewer.getByLabel("Password again").fill("guest password 1");
    await viewer.getByRole("button", { name: "Set password and join" }).click();
    await expect(viewer).toHaveURL(new RegExp(`/w/${slug}/boards$`));
    // Only their workspace in the switcher, and no admin sections.
    await expect(viewer.locator("#workspace-switcher option")).toHaveCount(1);
    const sections = viewer.getByRole("navigation", { name: "Workspace sections" });
    await expect(sections.getByRole("link", { name: "Boards" })).toBeVisible();
    for (const name of ["API tokens", "Webhooks", "Members", "Settings"]) await expect(sections.getByRole("link", { name })).toHaveCount(0);
    await expect(viewer.getByRole("link", { name: "Job runs" })).toHaveCount(0);

    // The board: browsable, with no upload area, no board actions, no new sub-board.
    await viewer.goto(`/w/${slug}/boards/${board.token}`);
    await expect(viewer.getByRole("heading", { name: "Screening for guests" })).toBeVisible();
    await expect(viewer.getByRole("region", { name: "Assets" }).getByRole("link", { name: /Guest reel/ })).toBeVisible();
    await expect(viewer.getByRole("heading", { name: "Upload to this board" })).toHaveCount(0);
    await expect(viewer.locator(".uppy-Dashboard")).toHaveCount(0);
    await expect(viewer.getByRole("button", { name: "Rename or change state" })).toHaveCount(0);
    await expect(viewer.getByText("New sub-board")).toHaveCount(0);
    await snap(viewer, testInfo, "viewer-board");

    // The asset: the video plays; no delete, edit, new version or revert.
    await viewer.goto(`/w/${slug}/assets/${video.token}`);
    const player = viewer.getByTestId("hls-player");
    await expect(player).toBeVisible({ timeout: 180_000 });
    await player.evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play();
    });
    await expect.poll(() => player.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 60_000 }).toBeGreaterThan(2);
    for (const name of ["Delete…", "Save details", /^Revert/]) await expect(viewer.getByRole("button", { name })).toHaveCount(0);
    await expect(viewer.getByText("Upload new version")).toHaveCount(0);
    await expect(viewer.getByLabel("Title")).toBeDisabled();
    await snap(viewer, testInfo, "viewer-asset-playing");

    // The server refuses a write from the page itself, and the admin pages are not found.
    const write = await viewer.evaluate(async (s) => {
      const res = await fetch(`/v1/${s}/boards`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ board: { title: "sneaky" } }) });
      return { status: res.status, body: await res.json() };
    }, slug);
    expect(write.status).toBe(403);
    expect(write.body.errors[0].extensions.code).toBe("insufficient_scope");
    expect((await viewer.goto(`/w/${slug}/tokens`))?.status()).toBe(404);
    expect((await viewer.goto(`/w/${slug}/members`))?.status()).toBe(404);

    // The admin promotes the viewer to editor.
    await page.reload();
    const row = page.getByTestId(`member-${email}`);
    await expect(row).toBeVisible();
    const patched = page.waitForResponse((r) => r.request().method() === "PATCH" && r.url().includes("/members/"));
    await row.getByRole("combobox").selectOption("editor");
    expect((await patched).status()).toBe(200);

    // Same browser, no new sign-in: the next page load has the upload area, and an upload lands on the board.
    await viewer.goto(`/w/${slug}/boards/${board.token}`);
    await expect(viewer.getByRole("heading", { name: "Upload to this board" })).toBeVisible();
    await dropFiles(viewer, [seed.files.image]);
    await expect(viewer.getByRole("region", { name: "Assets" }).getByRole("link", { name: /sunrise\.png/ })).toBeVisible();
    await snap(viewer, testInfo, "editor-uploaded");
    await guest.close();
  });

  test("someone who has an account signs in to accept, and keeps their password", async ({ page, browser }, testInfo) => {
    test.setTimeout(180_000);
    const other = seed.workspaces.gcs;
    const email = `member-${Date.now().toString(36)}@easel.test`;
    execFileSync("npm", ["run", "-s", "easel", "--", "user", "create", email, "their own password"], { env: { ...process.env, EASEL_DATA_DIR: dataDir }, encoding: "utf8" });

    await page.goto(`/w/${other}/members`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Role", { exact: true }).selectOption("editor");
    await page.getByRole("button", { name: "Create invitation link" }).click();
    const link = await page.getByLabel("Invitation link").inputValue();

    const guest = await browser.newContext({ storageState: { cookies: [], origins: [] } });
    const member = await guest.newPage();
    await member.goto(link);
    await expect(member.getByTestId("invited-role")).toHaveText("editor");
    await expect(member.getByLabel("Password", { exact: true })).toHaveCount(0); // no new password for an existing account
    await member.getByRole("link", { name: "Sign in to accept" }).click();
    await member.getByLabel("Email").fill(email);
    await member.getByLabel("Password").fill("their own password");
    await member.getByRole("button", { name: "Sign in" }).click();
    await expect(member).toHaveURL(/\/invite\/[A-Za-z0-9_-]{43}$/);
    await member.getByRole("button", { name: "Join the workspace" }).click();
    await expect(member).toHaveURL(new RegExp(`/w/${other}/boards$`));
    await snap(member, testInfo, "member-joined");
    const write = await member.evaluate(async (s) => (await fetch(`/v1/${s}/boards`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ board: { title: "by an editor" } }) })).status, other);
    expect(write).toBe(201);
    // The link is used up.
    await member.goto(link);
    await expect(member.getByText("This invitation has already been used.")).toBeVisible();
    await guest.close();
  });
});
