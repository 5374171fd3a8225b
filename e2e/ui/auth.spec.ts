import { ADMIN } from "../support/env";
import { expect, test } from "../support/page-test";
import { snap } from "../support/shots";

test.use({ storageState: { cookies: [], origins: [] } });

test("sign in, refused with a wrong password, then sign out", async ({ page }, testInfo) => {
  await page.goto("/boards");
  await expect(page).toHaveURL(/\/login$/);
  await expect(page.getByRole("heading", { name: "Sign in to Easel" })).toBeVisible();
  await snap(page, testInfo, "login");

  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Wrong email or password." })).toBeVisible();
  await snap(page, testInfo, "login-refused");

  await expect(page.getByLabel("Email")).toHaveValue(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/w\/[^/]+\/boards$/);
  await expect(page.getByText(ADMIN.email)).toBeVisible();
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name.endsWith("authjs.session-token"));
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe("Lax");

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto("/boards");
  await expect(page).toHaveURL(/\/login$/);
});
