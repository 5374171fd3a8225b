import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Browser, Page } from "@playwright/test";
import { apiClient } from "../support/api";
import { expectNoSeriousViolations } from "../support/axe";
import { baseURL, dataDir, seed } from "../support/env";
import { writePoster } from "../support/files";
import { hydrated } from "../support/hydrated";
import { expect, test } from "../support/page-test";
import { docsShot } from "../support/shots";

/**
 * Every page of the app, in the states a person meets it in (dialogs open, the lightbox, the
 * compare modes, a delivery log), checked by axe against WCAG 2.0/2.1 A and AA in the light and
 * the dark colour scheme: no serious or critical violation. Each state is checked in both schemes
 * on the same page (page.emulateMedia), so its data is made once. With EASEL_E2E_DOCS_SHOTS=1 the
 * same states are the screenshots docs/ui.md shows (docs/ui/<name>.png).
 *
 * The pages live in a workspace of their own, so the screenshots do not depend on what the
 * other specs left in the shared ones.
 */
const slug = "e2e-studio";

/** `npm run easel -- …` against the server's data dir; the last line of stdout. */
function easel(...args: string[]): string {
  const out = execFileSync("npm", ["run", "-s", "easel", "--", ...args], { env: { ...process.env, EASEL_DATA_DIR: dataDir }, encoding: "utf8" });
  return out.trim().split("\n").at(-1) ?? "";
}

/** The workspace and its API token, made once per server (a retried worker finds them in the data dir). */
function studioToken(): string {
  const file = path.join(dataDir, "a11y-studio.json");
  if (fs.existsSync(file)) return (JSON.parse(fs.readFileSync(file, "utf8")) as { token: string }).token;
  easel("workspace", "create", slug, "--name", "Northwind Studio", "--plan", "team", "--storage", "s3");
  const token = easel("token", "create", slug, "--scopes", "read,write", "--webhooks", "--name", "studio-sync");
  fs.writeFileSync(file, JSON.stringify({ token }));
  return token;
}

/** Flat-colour pictures for the assets on show (the suite's noisy fixtures would make every screenshot large). */
async function posters() {
  const dir = path.join(dataDir, "a11y-posters");
  fs.mkdirSync(dir, { recursive: true });
  const at = (name: string) => path.join(dir, `${name}.png`);
  return {
    sunrise: await writePoster(at("sunrise"), { sky: "#fde68a", sun: "#f97316", hills: "#65a30d" }),
    sunriseLater: await writePoster(at("sunrise-later"), { sky: "#bae6fd", sun: "#facc15", hills: "#4d7c0f" }, 0.35),
    studio: await writePoster(at("studio"), { sky: "#fed7aa", sun: "#ea580c", hills: "#9a3412" }, 0.3),
    harbour: await writePoster(at("harbour"), { sky: "#312e81", sun: "#fbbf24", hills: "#1e3a8a" }, 0.5),
  };
}

/** CSS transitions (a button's hover colour, a theme change) finished, so axe reads final colours; at most a second. */
async function transitionsDone(page: Page) {
  await page.evaluate(() => {
    const running = document.getAnimations().filter((a) => a instanceof CSSTransition && a.playState === "running");
    return Promise.race([Promise.all(running.map((a) => a.finished.catch(() => undefined))), new Promise((r) => setTimeout(r, 1000))]);
  });
}

/**
 * The page as it is now, in the light and then the dark scheme: axe finds nothing serious, and
 * (when asked) its docs screenshot: light always, dark with `darkShot`. `exclude` is for a node of a
 * third-party widget (Uppy's Dashboard, say) that no option or style of it can fix: give the reason
 * where it is passed and list it in docs/ui.md, "Accessibility". None is needed today.
 */
async function check(page: Page, name: string, opts: { darkShot?: boolean; exclude?: readonly string[] } = {}) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await transitionsDone(page);
    await expectNoSeriousViolations(page, `${name} (${scheme})`, opts.exclude);
    if (scheme === "light") await docsShot(page, name);
    else if (opts.darkShot) await docsShot(page, `${name}-dark`);
  }
  await page.emulateMedia({ colorScheme: "light" });
}

/** A browser of its own with no session. */
async function guest(browser: Browser) {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  return { context, page: await context.newPage() };
}

async function signIn(page: Page, email: string, password: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

test.describe("accessibility: no serious or critical axe violation, light and dark", () => {
  let token = "";
  test.beforeAll(() => {
    token = studioToken();
  });

  test("sign-in, an invitation (open and used), a member with no workspace, a page that does not exist", async ({ page, browser }) => {
    test.setTimeout(180_000);
    const visitor = await guest(browser);
    await visitor.page.goto("/login");
    await expect(visitor.page.getByRole("button", { name: "Sign in" })).toBeVisible();
    await check(visitor.page, "login", { darkShot: true });

    // An invitation made by the owner, opened by someone new, accepted, then opened again.
    await page.goto(`/w/${slug}/members`);
    const email = `invited-${Date.now().toString(36)}@easel.test`;
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Role", { exact: true }).selectOption("editor");
    await page.getByRole("button", { name: "Create invitation link" }).click();
    const link = await page.getByLabel("Invitation link").inputValue();
    await visitor.page.goto(link);
    await expect(visitor.page.getByTestId("invited-role")).toHaveText("editor");
    await check(visitor.page, "invite");
    await visitor.page.getByLabel("Password", { exact: true }).fill("a long password 1");
    await visitor.page.getByLabel("Password again").fill("a long password 1");
    await visitor.page.getByRole("button", { name: "Set password and join" }).click();
    await expect(visitor.page).toHaveURL(new RegExp(`/w/${slug}/boards$`));
    await visitor.page.goto(link);
    await expect(visitor.page.getByText("This invitation has already been used.")).toBeVisible();
    await check(visitor.page, "invite-used");
    await visitor.context.close();

    // A member of no workspace: /boards says so.
    const loner = `no-workspace-${Date.now().toString(36)}@easel.test`;
    easel("user", "create", loner, "a long password 2");
    const member = await guest(browser);
    await member.page.goto("/login");
    await signIn(member.page, loner, "a long password 2");
    await expect(member.page.getByText("You are not a member of any workspace")).toBeVisible();
    await member.page.goto("/boards");
    await expect(member.page.getByText("You are not a member of any workspace")).toBeVisible();
    await check(member.page, "boards-no-workspace");
    await member.context.close();

    expect((await page.goto(`/w/${slug}/no-such-page`))?.status()).toBe(404);
    await check(page, "not-found");
  });

  test("the workspace's boards, and a board: grid, lightbox, bulk selection, delete and tag dialogs", async ({ page, request }) => {
    test.setTimeout(180_000);
    const api = apiClient(request, slug, token);
    const campaign = await api.createBoard("Spring campaign");
    await api.createBoard("Print", campaign.token);
    await api.createBoard("Social", campaign.token);
    await api.createBoard("Archive 2025");
    const pictures = await posters();
    for (const [file, title] of [[pictures.harbour, "Harbour at dusk"], [pictures.studio, "Orange studio"], [pictures.sunrise, "Sunrise"]] as const) {
      await api.upload(file, { board: campaign.token, title });
    }

    await page.goto(`/w/${slug}/boards`);
    await expect(page.getByRole("tree")).toBeVisible();
    await check(page, "workspace-boards");

    await page.goto(`/w/${slug}/boards/${campaign.token}`);
    await hydrated(page, "[data-asset-index]");
    await expect(page.getByText("3 assets")).toBeVisible();
    await expect(page.locator(".uppy-Dashboard-inner")).toBeVisible();
    await check(page, "board", { darkShot: true });

    await page.getByRole("button", { name: "Preview Sunrise" }).click();
    await expect(page.getByRole("dialog", { name: "Preview: Sunrise" })).toBeVisible();
    await expect(page.getByTestId("lightbox-image")).toBeVisible();
    await check(page, "board-lightbox", { darkShot: true });
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("lightbox")).toBeHidden();

    await page.getByRole("checkbox", { name: "Select Sunrise" }).click();
    await page.getByRole("checkbox", { name: "Select Orange studio" }).click();
    await expect(page.getByTestId("selected-count")).toHaveText("2 selected");
    await check(page, "board-selection");

    await page.getByRole("button", { name: "Delete…" }).click();
    await expect(page.getByRole("dialog", { name: "Delete 2 assets?" })).toBeVisible();
    await check(page, "board-delete-dialog");
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();

    await page.getByRole("button", { name: "Add tag…" }).click();
    await expect(page.getByRole("dialog", { name: "Add a tag to 2 assets" })).toBeVisible();
    await page.getByRole("dialog").getByLabel("Tag").fill("spring");
    await check(page, "board-tag-dialog");
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
  });

  test("an image asset, and its compare panel in swipe and overlay", async ({ page, request }) => {
    const api = apiClient(request, slug, token);
    const board = await api.createBoard("Key art");
    const pictures = await posters();
    const asset = await api.upload(pictures.sunrise, { board: board.token, title: "Poster key art" });
    const thumbnailsMade = () => expect.poll(async () => (await api.asset(asset.token)).thumbnails.length, { timeout: 30_000 }).toBeGreaterThan(0);
    await thumbnailsMade();
    await api.newVersion(asset.token, pictures.sunriseLater, "first colour pass");
    await thumbnailsMade();

    await page.goto(`/w/${slug}/assets/${asset.token}`);
    await expect(page.getByTestId("version-1")).toBeVisible();
    await check(page, "asset-image");

    await page.getByTestId("version-1").getByLabel("Compare").check();
    await page.getByTestId("version-2").getByLabel("Compare").check();
    const panel = page.getByRole("region", { name: "Comparing v1 and v2 (head)" });
    await panel.getByRole("button", { name: "Swipe" }).click();
    await expect(panel.getByRole("slider", { name: /Swipe divider/ })).toBeVisible();
    await panel.scrollIntoViewIfNeeded();
    await check(page, "asset-compare-swipe");
    await panel.getByRole("button", { name: "Overlay" }).click();
    await expect(panel.getByTestId("overlay-top")).toBeVisible();
    await check(page, "asset-compare-overlay");
  });

  test("a video asset with its player", async ({ page, request }) => {
    test.setTimeout(240_000);
    const api = apiClient(request, slug, token);
    const board = await api.createBoard("Showreel");
    const video = await api.upload(seed.files.video, { board: board.token, title: "Showreel cut 3" });
    await page.goto(`/w/${slug}/assets/${video.token}`);
    await expect(page.getByTestId("hls-player")).toBeVisible({ timeout: 180_000 });
    await check(page, "asset-video", { darkShot: true });
  });

  test("search, API tokens, webhooks with a delivery log, members, settings", async ({ page, request }) => {
    test.setTimeout(120_000);
    const api = apiClient(request, slug, token);
    const board = await api.createBoard("Hooked uploads");

    await page.goto(`/w/${slug}/search`);
    await hydrated(page, "#search-query");
    await page.locator("#search-query").fill("Sunrise");
    await page.keyboard.press("Enter");
    await expect(page.getByRole("link", { name: "Sunrise", exact: true }).first()).toBeVisible();
    await check(page, "search");

    await page.goto(`/w/${slug}/tokens`);
    const form = page.getByRole("form", { name: "Create an API token" });
    await form.getByLabel("Name").fill("render-farm");
    await form.getByRole("button", { name: "Create token" }).click();
    await expect(page.getByTestId("issued-token")).toHaveText(/^easel_/);
    await check(page, "tokens");

    await page.goto(`/w/${slug}/triggers`);
    const hook = page.getByRole("form", { name: "Create a webhook trigger" });
    await hook.getByLabel("Event").selectOption("asset_added");
    await hook.getByLabel("Receiver URL").fill(`${baseURL}/e2e-receiver`);
    await hook.getByLabel("Board").selectOption(board.token);
    await hook.getByRole("button", { name: "Create trigger" }).click();
    await expect(page.getByText(/Signing secret, shown only now: whsec_/)).toBeVisible();
    await api.upload(seed.files.image, { board: board.token, title: "Fires the hook" });
    const item = page.getByRole("listitem").filter({ hasText: `${baseURL}/e2e-receiver` });
    await expect(async () => {
      await page.reload();
      await item.getByRole("button", { name: "Delivery log" }).click();
      await expect(item.getByRole("row").filter({ hasText: "asset_added" }).first()).toBeVisible({ timeout: 2000 });
    }).toPass({ timeout: 45_000 });
    await check(page, "triggers");

    await page.goto(`/w/${slug}/members`);
    await page.getByLabel("Email").fill(`pending-${Date.now().toString(36)}@easel.test`);
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Create invitation link" }).click();
    await expect(page.getByLabel("Invitation link")).toHaveValue(/\/invite\//);
    await check(page, "members");

    await page.goto(`/w/${slug}/settings`);
    await expect(page.getByRole("form", { name: "Workspace plan and settings" })).toBeVisible();
    await check(page, "settings");
  });

  test("workspaces, job runs, one run, the API reference", async ({ page }) => {
    test.setTimeout(240_000); // the API reference is one long page, and axe reads all of it twice
    await page.goto("/workspaces");
    await expect(page.getByRole("form", { name: "Create a workspace" })).toBeVisible();
    await check(page, "workspaces");

    await page.goto("/jobs");
    await expect(page.getByRole("heading", { name: "Job runs" })).toBeVisible();
    await check(page, "jobs");
    await page.getByRole("table").getByRole("link").first().click();
    await expect(page.getByRole("heading", { name: "Steps" })).toBeVisible();
    await check(page, "job-run");

    await page.goto("/docs/api");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await check(page, "api-docs");
  });
});
