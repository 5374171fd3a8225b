import { defineConfig } from "@playwright/test";

/**
 * Browser tests that need PostgreSQL and several built nodes (`npm run test:e2e:pg`): each spec
 * starts its own nodes on a scratch database of TEST_DATABASE_URL's server (bench/scale/setup.ts),
 * so there is no web server here. Needs `npm run build` first, like `npm run test:scale`.
 */
export default defineConfig({
  testDir: "e2e-pg",
  outputDir: "test-results/pg",
  workers: 1,
  // A stray test.only would quietly run one test instead of the suite.
  forbidOnly: !!process.env.CI,
  fullyParallel: false,
  timeout: 300_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  use: {
    screenshot: "on",
    trace: "retain-on-failure",
    viewport: { width: 1360, height: 900 },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"],
    },
  },
});
