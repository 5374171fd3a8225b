import { apiClient } from "../support/api";
import { baseURL, seed } from "../support/env";
import { holdScriptsBack } from "../support/hydrated";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";


test("create an API token, see it once, use it, revoke it", async ({ page, request }, testInfo) => {
  const slug = seed.workspaces.s3;
  await page.goto(`/w/${slug}/tokens`);
  const form = page.getByRole("form", { name: "Create an API token" });
  await form.getByLabel("Name").fill("ci-deploy");
  await form.getByLabel(/^write/).check();
  await form.getByRole("button", { name: "Create token" }).click();
  const shown = page.getByTestId("issued-token");
  await expect(shown).toHaveText(/^easel_/);
  const token = (await shown.textContent())!.trim();
  await snap(page, testInfo, "token-created");

  const row = page.getByTestId("token-ci-deploy");
  await expect(row).toContainText(token.slice(0, 10));
  await expect(row).toContainText("write");
  const use = () => request.get(`/v1/${slug}/boards`, { headers: { authorization: `Bearer ${token}` } });
  expect((await use()).status()).toBe(200);

  // Once dismissed, the token is gone from the page for good.
  await page.getByRole("button", { name: "I have stored it" }).click();
  await expect(page.getByTestId("issued-token")).toHaveCount(0);
  await page.reload();
  await expect(page.getByText(token)).toHaveCount(0);

  await row.getByRole("button", { name: "Revoke ci-deploy" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke token" }).click();
  await expect(row).toContainText("revoked");
  await snap(page, testInfo, "token-revoked");
  const after = await use();
  expect(after.status()).toBe(401);
  expect((await after.json()).errors[0].extensions.code).toBe("unauthenticated");
});

test("the new-workspace form stays disabled until the page is live", async ({ page }) => {
  // The server's HTML is all there is until release(), and typing into it would be lost.
  const release = await holdScriptsBack(page);
  await page.goto("/workspaces", { waitUntil: "commit" });
  const form = page.getByRole("form", { name: "Create a workspace" });
  await expect(form.getByLabel("Slug")).toBeDisabled();
  await expect(form.getByLabel("Storage")).toBeDisabled();
  release();
  await expect(form.getByLabel("Slug")).toBeEnabled();
  await form.getByLabel("Slug").fill("typed-once-live");
  await expect(form.getByRole("button", { name: "Create workspace" })).toBeEnabled();
});

test("create a workspace and change its plan and settings", async ({ page }, testInfo) => {
  await page.goto("/workspaces");
  const form = page.getByRole("form", { name: "Create a workspace" });
  await form.getByLabel("Slug").fill("e2e-made-in-ui");
  await form.getByLabel("Name").fill("Made in the UI");
  await form.getByLabel("Storage").selectOption("gcs");
  await form.getByRole("button", { name: "Create workspace" }).click();
  await expect(page).toHaveURL(/\/w\/e2e-made-in-ui\/boards$/);

  await page.getByRole("link", { name: "Settings" }).click();
  await expect(page.getByText("GCS (resumable uploads)")).toBeVisible();
  await expect(page.getByText("7 days")).toBeVisible();
  const settings = page.getByRole("form", { name: "Workspace plan and settings" });
  await settings.getByLabel("Plan").selectOption("team");
  await settings.getByLabel("Video streaming (HLS encodes)").uncheck();
  await settings.getByRole("button", { name: "Save settings" }).click();
  await expect(settings.getByText("Saved.")).toBeVisible();
  await expect(page.getByText("unlimited")).toBeVisible();
  await page.reload();
  await expect(page.getByRole("form", { name: "Workspace plan and settings" }).getByLabel("Plan")).toHaveValue("team");
  await expect(page.getByRole("form", { name: "Workspace plan and settings" }).getByLabel("Video streaming (HLS encodes)")).not.toBeChecked();
  await snap(page, testInfo, "workspace-settings");
});

test("webhook triggers: create, delivery log, resend, delete", async ({ page, request }, testInfo) => {
  const slug = seed.workspaces.s3;
  const api = apiClient(request, slug, seed.tokens.s3);
  const board = await api.createBoard("Hooked board");

  await page.goto(`/w/${slug}/triggers`);
  const form = page.getByRole("form", { name: "Create a webhook trigger" });
  await form.getByLabel("Event").selectOption("asset_added");
  // A receiver that answers 404: every attempt is logged as a failure.
  await form.getByLabel("Receiver URL").fill(`${baseURL}/e2e-receiver`);
  await form.getByLabel("Board").selectOption(board.token);
  await form.getByRole("button", { name: "Create trigger" }).click();
  await expect(page.getByText(/Signing secret, shown only now: whsec_/)).toBeVisible();
  const item = page.getByRole("listitem").filter({ hasText: `${baseURL}/e2e-receiver` });
  await expect(item).toContainText("asset_added");
  await expect(item).toContainText("active until");

  // The log is open before anything is delivered: the attempt arrives in it by the live stream, with no reload.
  await item.getByRole("button", { name: "Delivery log" }).click();
  await expect(item.getByRole("button", { name: "Hide deliveries" })).toBeVisible();
  await expect(item.getByRole("row").filter({ hasText: "asset_added" })).toHaveCount(0);
  let navigations = 0;
  page.on("framenavigated", (f) => f === page.mainFrame() && navigations++);
  await api.upload(seed.files.image, { board: board.token, title: "Fires the hook" });
  await expect(item.getByRole("row").filter({ hasText: "asset_added" }).first()).toBeVisible({ timeout: 45_000 });
  expect(navigations, "the page was not reloaded").toBe(0);
  await expect(item.getByRole("row").filter({ hasText: "asset_added" }).first()).toContainText("404");
  await snap(page, testInfo, "trigger-deliveries");
  const resent = page.waitForResponse((r) => r.url().includes("/resend"));
  await item.getByRole("button", { name: "Resend" }).first().click();
  expect((await resent).ok()).toBe(true);

  await item.getByRole("button", { name: "Delete" }).click();
  await expect(item).toHaveCount(0);
});

test("job runs list the background work, and the open page shows new runs by itself", async ({ page, request }, testInfo) => {
  const api = apiClient(request, seed.workspaces.s3, seed.tokens.s3);
  await page.goto("/jobs");
  await expect(page.getByRole("heading", { name: "Job runs" })).toBeVisible();
  const runLinks = () => page.getByRole("table").getByRole("link").evaluateAll((links) => links.map((a) => a.getAttribute("href")));
  const before = new Set(await runLinks());
  // An upload's processing is a run of the embedded executor: it appears with no reload.
  let reloads = 0;
  page.on("load", () => reloads++);
  await api.upload(seed.files.image, { board: (await api.createBoard("Makes a job")).token });
  await expect(async () => {
    expect((await runLinks()).some((href) => !before.has(href))).toBe(true);
  }).toPass({ timeout: 10_000 });
  expect(reloads).toBe(0);
  await page.getByRole("table").getByRole("link").first().click();
  await expect(page.getByRole("heading", { name: "Steps" })).toBeVisible();
  await snap(page, testInfo, "job-run");
});
