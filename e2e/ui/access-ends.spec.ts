import { execFileSync } from "node:child_process";
import { dataDir, seed } from "../support/env";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

const slug = seed.workspaces.free;

/** `npm run easel -- …` against the server's data dir (the CLI reaches the running server's database). */
function easel(...args: string[]): string {
  return execFileSync("npm", ["run", "-s", "easel", "--", ...args], { env: { ...process.env, EASEL_DATA_DIR: dataDir }, encoding: "utf8" });
}

/**
 * Contract §11a in the browser: an admin issues an API token, makes a webhook trigger with it and
 * invites someone as admin; the owner removes them from the Members page, which says beforehand
 * what it will revoke and afterwards what it did; the token answers 401, the trigger is disabled
 * and the invitation link is withdrawn.
 */
test("removing an admin revokes the token, trigger and invitation they made, with the counts shown before and after", async ({ page, browser, request }, testInfo) => {
  test.setTimeout(240_000);
  const stamp = Date.now().toString(36);
  const leaver = { email: `leaver-${stamp}@easel.test`, password: "leaving admin password 1" };
  const invited = `invited-${stamp}@easel.test`;
  easel("user", "create", leaver.email, leaver.password);
  easel("member", "add", slug, leaver.email, "--role", "admin");

  // The admin signs in in a browser of their own, issues a token and invites someone as admin.
  const theirs = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const admin = await theirs.newPage();
  await admin.goto("/login");
  await admin.getByLabel("Email").fill(leaver.email);
  await admin.getByLabel("Password").fill(leaver.password);
  await admin.getByRole("button", { name: "Sign in" }).click();
  await expect(admin).toHaveURL(new RegExp(`/w/${slug}/boards$`));

  await admin.goto(`/w/${slug}/tokens`);
  const tokenName = `deploy-${stamp}`;
  const form = admin.getByRole("form", { name: "Create an API token" });
  await form.getByLabel("Name").fill(tokenName);
  await form.getByRole("checkbox", { name: /^write/ }).check();
  await form.getByRole("checkbox", { name: "May manage webhook triggers" }).check();
  await form.getByRole("button", { name: "Create token" }).click();
  const token = (await admin.getByTestId("issued-token").textContent())?.trim() ?? "";
  expect(token).toMatch(/^easel_/);

  await admin.goto(`/w/${slug}/members`);
  await admin.getByLabel("Email").fill(invited);
  await admin.getByLabel("Role", { exact: true }).selectOption("admin");
  await admin.getByRole("button", { name: "Create invitation link" }).click();
  const link = await admin.getByLabel("Invitation link").inputValue();
  await expect(admin.getByTestId(`invitation-${invited}`).getByTestId("created-by")).toHaveText(`by ${leaver.email}`);

  const writeWithToken = () => request.post(`/v1/${slug}/boards`, { headers: { authorization: `Bearer ${token}`, cookie: "" }, data: { board: { title: `by ${tokenName}` } } });
  const board = await writeWithToken();
  expect(board.status()).toBe(201);
  // With the token, a webhook trigger on a board of its own (a public address literal: no DNS lookup).
  const hooked = await request.post("/v1/trigger", {
    headers: { authorization: `Bearer ${token}`, cookie: "" },
    data: { hook: "asset_added", hook_url: "https://93.184.215.14/leaver-hook", organization_slug: slug, collection_token: (await board.json()).data.token },
  });
  expect(hooked.status()).toBe(201);
  const triggerId = (await hooked.json()).id as string;

  // The owner sees who made the token, and what removing the admin will revoke.
  await page.goto(`/w/${slug}/tokens`);
  await expect(page.getByTestId(`token-${tokenName}`).getByTestId("created-by")).toHaveText(leaver.email);
  await page.goto(`/w/${slug}/members`);
  const row = page.getByTestId(`member-${leaver.email}`);
  await expect(row).toContainText("made 1 API token, 1 pending invitation and 1 webhook trigger");
  await row.getByRole("button", { name: `Remove ${leaver.email}` }).click();
  const dialog = page.getByRole("dialog", { name: `Remove ${leaver.email}?` });
  await expect(dialog.getByTestId("confirm-revocations")).toContainText("This revokes the 1 API token, 1 pending invitation and 1 webhook trigger they made in this workspace");
  await expect(dialog.getByTestId("confirm-revocations")).toContainText("Their webhook triggers stop delivering until another admin renews them");
  await snap(page, testInfo, "removal-confirmation");
  const removed = page.waitForResponse((r) => r.request().method() === "DELETE" && r.url().includes("/members/"));
  await dialog.getByRole("button", { name: "Remove member" }).click();
  expect(await (await removed).json()).toMatchObject({ data: { revoked: { api_tokens: 1, invitations: 1, webhook_triggers: 1 } } });
  await expect(page.getByTestId("revocation-outcome")).toHaveText(`Removed ${leaver.email}; revoked 1 API token, 1 pending invitation and 1 webhook trigger.`);
  await expect(page.getByTestId(`member-${leaver.email}`)).toHaveCount(0);
  await expect(page.getByTestId(`invitation-${invited}`)).toHaveCount(0);
  await snap(page, testInfo, "removal-done");

  // The trigger is disabled, and says why (the owner's session lists every workspace's triggers).
  const triggers = await page.request.get(`/v1/trigger?organization_slug=${slug}`);
  expect(((await triggers.json()).data as { id: string }[]).find((t) => t.id === triggerId)).toMatchObject({ status: "disabled", disabled_reason: "maker_lost_access" });

  // The token is dead for reads and writes, and the invitation link is withdrawn.
  expect((await writeWithToken()).status()).toBe(401);
  expect((await request.get(`/v1/${slug}/boards`, { headers: { authorization: `Bearer ${token}`, cookie: "" } })).status()).toBe(401);
  await page.goto(`/w/${slug}/tokens`);
  await expect(page.getByTestId(`token-${tokenName}`)).toContainText("revoked");
  const stranger = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const strangerPage = await stranger.newPage();
  await strangerPage.goto(link);
  await expect(strangerPage.getByText("This invitation was withdrawn by a workspace admin.")).toBeVisible();
  await expect(strangerPage.getByRole("button", { name: "Set password and join" })).toHaveCount(0);
  await stranger.close();
  await theirs.close();
});
