import { execFileSync } from "node:child_process";
import type { Page } from "@playwright/test";
import { apiClient } from "../support/api";
import { dataDir, seed } from "../support/env";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

const slug = seed.workspaces.s3;
/** The workspace pages only the admin role may open (tokens, triggers, members, settings). */
const ADMIN_SECTIONS = ["tokens", "triggers", "members", "settings"];

/** `npm run easel -- …` against the server's data dir (the CLI reaches the running server's database). */
function easel(...args: string[]): string {
  return execFileSync("npm", ["run", "-s", "easel", "--", ...args], { env: { ...process.env, EASEL_DATA_DIR: dataDir }, encoding: "utf8" });
}

/** A request from the page itself (same origin, its cookie): the status and the error code, if any. */
async function pageFetch(page: Page, method: string, url: string, body?: unknown): Promise<{ status: number; code?: string }> {
  return page.evaluate(
    async ([m, u, b]) => {
      const res = await fetch(u as string, { method: m as string, headers: b === undefined ? {} : { "content-type": "application/json" }, body: b === undefined ? undefined : JSON.stringify(b) });
      const json = await res.json().catch(() => null);
      const code = json?.errors?.[0]?.extensions?.code;
      return code === undefined ? { status: res.status } : { status: res.status, code };
    },
    [method, url, body] as const,
  );
}

/** The workspace's section navigation shows Boards and none of the admin sections. */
async function expectNoAdminSections(page: Page) {
  const sections = page.getByRole("navigation", { name: "Workspace sections" });
  await expect(sections.getByRole("link", { name: "Boards" })).toBeVisible();
  for (const name of ["API tokens", "Webhooks", "Members", "Settings"]) await expect(sections.getByRole("link", { name })).toHaveCount(0);
}

async function dropFiles(page: Page, files: string[]) {
  await page.locator("input.uppy-Dashboard-input[type=file]").first().setInputFiles(files);
  await page.getByRole("button", { name: new RegExp(`^Upload ${files.length} files?$`) }).click();
  await expect(page.locator(".uppy-StatusBar")).toContainText("Complete", { timeout: 60_000 });
}

test.describe("members", () => {
  test("a workspace admin invites a viewer, who browses and plays but cannot write; promoted to editor, they upload; revoke and remove work", async ({ page, browser, request }, testInfo) => {
    test.setTimeout(420_000);
    const api = apiClient(request, slug, seed.tokens.s3);
    const board = await api.createBoard("Screening for guests");
    const video = await api.upload(seed.files.video, { board: board.token, title: "Guest reel" });
    const stamp = Date.now().toString(36);
    const email = `viewer-${stamp}@easel.test`;
    const elsewhere = seed.workspaces.gcs;

    // The inviter is a member with the admin role (not the owner), made from the server's CLI and signed in on this page.
    const admin = { email: `admin-${stamp}@easel.test`, password: "workspace admin password 1" };
    easel("user", "create", admin.email, admin.password);
    easel("member", "add", slug, admin.email, "--role", "admin");
    await page.context().clearCookies();
    await page.goto("/login");
    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill(admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(new RegExp(`/w/${slug}/boards$`));
    await expect(page.locator("#workspace-switcher option")).toHaveCount(1); // an admin of one workspace, not an owner

    // The admin invites by email and gets a link to copy.
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
    const playerMedia: string[] = [];
    viewer.on("request", (r) => {
      const url = new URL(r.url());
      if (url.pathname.startsWith("/media/") && url.searchParams.has("token")) playerMedia.push(r.url());
    });
    await viewer.goto(link);
    await expect(viewer.getByTestId("invited-role")).toHaveText("viewer");
    await viewer.getByLabel("Password", { exact: true }).fill("guest password 1");
    await viewer.getByLabel("Password again").fill("guest password 1");
    await viewer.getByRole("button", { name: "Set password and join" }).click();
    await expect(viewer).toHaveURL(new RegExp(`/w/${slug}/boards$`));
    // Only their workspace in the switcher, and no admin sections.
    await expect(viewer.locator("#workspace-switcher option")).toHaveCount(1);
    await expectNoAdminSections(viewer);
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
    for (const name of ["Delete…", "Save details", /^Revert/, "Retry encode"]) await expect(viewer.getByRole("button", { name })).toHaveCount(0);
    await expect(viewer.getByText("Upload new version")).toHaveCount(0);
    await expect(viewer.getByLabel("Title")).toBeDisabled();
    await snap(viewer, testInfo, "viewer-asset-playing");

    // The server refuses every write from the page itself (same origin, the viewer's own cookie).
    const writes: [string, string, unknown][] = [
      ["POST", `/v1/${slug}/boards`, { board: { title: "sneaky" } }],
      ["POST", `/v1/${slug}/assets/upload_prepare`, { asset: { media_type: "image/png", size: 10 } }],
      ["PATCH", `/v1/${slug}/assets/${video.token}`, { asset: { title: "renamed by a viewer" } }],
      ["POST", `/v1/${slug}/assets/${video.token}/revert`, { version_number: 1 }],
      ["DELETE", `/v1/${slug}/assets/${video.token}`, undefined],
      ["POST", `/api/admin/workspaces/${slug}/tokens`, { token: { name: "viewer's", scopes: ["read"] } }],
    ];
    for (const [method, url, body] of writes) {
      const answer = await pageFetch(viewer, method, url, body);
      expect({ method, url, ...answer }).toEqual({ method, url, status: 403, code: "insufficient_scope" });
    }
    expect((await api.asset(video.token)).title).toBe("Guest reel"); // nothing changed
    for (const section of ADMIN_SECTIONS) expect((await viewer.goto(`/w/${slug}/${section}`))?.status(), section).toBe(404);
    // A workspace they are not in does not exist for them.
    expect((await viewer.goto(`/w/${elsewhere}/boards`))?.status()).toBe(404);
    expect(await pageFetch(viewer, "GET", `/v1/${elsewhere}/boards`)).toEqual({ status: 404, code: "workspace_not_found" });

    // The admin promotes the viewer to editor.
    await page.reload();
    const row = page.getByTestId(`member-${email}`);
    await expect(row).toBeVisible();
    const patched = page.waitForResponse((r) => r.request().method() === "PATCH" && r.url().includes("/members/"));
    await row.getByRole("combobox").selectOption("editor");
    expect((await patched).status()).toBe(200);

    // Same browser, no new sign-in: still no admin sections, whose pages stay not found; the next
    // page load has the upload area, and an upload lands on the board.
    await viewer.goto(`/w/${slug}/boards/${board.token}`);
    await expectNoAdminSections(viewer);
    await expect(viewer.getByRole("heading", { name: "Upload to this board" })).toBeVisible();
    for (const section of ADMIN_SECTIONS) expect((await viewer.goto(`/w/${slug}/${section}`))?.status(), section).toBe(404);
    await viewer.goto(`/w/${slug}/boards/${board.token}`);
    await dropFiles(viewer, [seed.files.image]);
    await expect(viewer.getByRole("region", { name: "Assets" }).getByRole("link", { name: /sunrise\.png/ })).toBeVisible();
    await snap(viewer, testInfo, "editor-uploaded");

    // Revoke: a second, pending invitation disappears from the list and its link is refused.
    const later = `later-${stamp}@easel.test`;
    await page.getByLabel("Email").fill(later);
    await page.getByRole("button", { name: "Create invitation link" }).click();
    const laterLink = await page.getByLabel("Invitation link").inputValue();
    await expect(page.getByTestId(`invitation-${later}`)).toBeVisible();
    await page.getByRole("button", { name: `Revoke the invitation of ${later}` }).click();
    await expect(page.getByTestId(`invitation-${later}`)).toHaveCount(0);
    const stranger = await browser.newContext({ storageState: { cookies: [], origins: [] } });
    const strangerPage = await stranger.newPage();
    await strangerPage.goto(laterLink);
    await expect(strangerPage.getByText("This invitation was withdrawn by a workspace admin.")).toBeVisible();
    await expect(strangerPage.getByRole("button", { name: "Set password and join" })).toHaveCount(0);
    await stranger.close();

    // Remove: the member leaves the list, and their open session (and the player's board token
    // the page minted for them) loses the workspace on the next request.
    expect(playerMedia.length, "the player read media with its board access token").toBeGreaterThan(0);
    expect((await request.get(playerMedia[0], { headers: { cookie: "" } })).status()).toBe(200);
    await page.getByRole("button", { name: `Remove ${email}` }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Remove member" }).click();
    await expect(page.getByTestId(`member-${email}`)).toHaveCount(0);
    await snap(page, testInfo, "member-removed");
    expect((await viewer.goto(`/w/${slug}/boards`))?.status()).toBe(404);
    expect(await pageFetch(viewer, "GET", `/v1/${slug}/boards`)).toEqual({ status: 404, code: "workspace_not_found" });
    expect((await request.get(playerMedia[0], { headers: { cookie: "" } })).status()).toBe(401);
    await guest.close();
  });

  test("someone who has an account signs in to accept, and keeps their password", async ({ page, browser }, testInfo) => {
    test.setTimeout(180_000);
    const other = seed.workspaces.gcs;
    const email = `member-${Date.now().toString(36)}@easel.test`;
    easel("user", "create", email, "their own password");

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
