import { execFileSync } from "node:child_process";
import path from "node:path";
import { expect, test as setup } from "@playwright/test";
import { ADMIN, WORKSPACES, baseURL, dataDir, writeSeed, type Seed } from "./support/env";
import { makeFixtures } from "./support/files";

/** `npm run easel -- …` against the server's data dir (the CLI talks to it over its socket); the last line of stdout. */
function easel(...args: string[]): string {
  const out = execFileSync("npm", ["run", "-s", "easel", "--", ...args], { env: { ...process.env, EASEL_DATA_DIR: dataDir }, encoding: "utf8" });
  return out.trim().split("\n").at(-1) ?? "";
}

setup("seed workspaces, tokens and files; sign in", async ({ page }, testInfo) => {
  setup.setTimeout(180_000);
  easel("admin", "create", ADMIN.email, ADMIN.password);
  const workspaces = WORKSPACES;
  easel("workspace", "create", workspaces.s3, "--name", "E2E Studio", "--plan", "team", "--storage", "s3");
  easel("workspace", "create", workspaces.gcs, "--name", "E2E Cloud", "--plan", "pro", "--storage", "gcs");
  easel("workspace", "create", workspaces.free, "--name", "E2E Free", "--plan", "free", "--storage", "s3");
  const tokens = {
    s3: easel("token", "create", workspaces.s3, "--scopes", "read,write", "--webhooks", "--name", "e2e"),
    gcs: easel("token", "create", workspaces.gcs, "--scopes", "read,write", "--name", "e2e"),
    free: easel("token", "create", workspaces.free, "--scopes", "read,write", "--name", "e2e"),
  };
  for (const t of Object.values(tokens)) expect(t).toMatch(/^easel_/);
  const files = await makeFixtures(path.join(dataDir, "fixtures"));
  writeSeed({ tokens, files } satisfies Seed);

  await page.goto("/login");
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(/\/w\/[^/]+\/boards$/);
  await page.context().storageState({ path: path.join(dataDir, "admin-state.json") });
  testInfo.annotations.push({ type: "server", description: `${baseURL}, data dir ${dataDir}` });
});
