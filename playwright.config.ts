import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests against `npm run build && npm start` on a port and a data dir of their own
 * (an embedded database and object store in a temp dir, seeded through `npm run easel`). The
 * browser is the system's chromium: `npx playwright install` cannot download one here.
 */
const port = Number(process.env.EASEL_E2E_PORT ?? 3217);
// Set once in the runner process; its workers inherit the variable, so every process agrees.
const dataDir = (process.env.EASEL_E2E_DATA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), "easel-e2e-")));
const baseURL = `http://127.0.0.1:${port}`;
process.env.EASEL_E2E_BASE_URL = baseURL;

/** Written by e2e/global.setup.ts after signing in through the login page. */
export const adminStatePath = path.join(dataDir, "admin-state.json");

const chromiumFlags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  "--autoplay-policy=no-user-gesture-required",
];

/**
 * Specs that cannot share the server with another spec at the same time: one moves the server's
 * clock (every signed link and session of a spec beside it would expire), the others hold a page
 * to a time (first cards within 1 s, the head followed within 2 s) that a second spec's encodes
 * and uploads on the same two cores would turn into a measure of the machine. They run alone,
 * after the rest.
 */
const ALONE = ["ui/versions.spec.ts", "ui/large-boards.spec.ts", "ui/follow-head.spec.ts", "ui/live-updates.spec.ts"];
const alone = new RegExp(`(${ALONE.map((f) => f.replace(/[./]/g, "\\$&")).join("|")})$`);

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  // One server and one embedded database for every spec; each spec works in workspaces and boards
  // of its own, so two specs run side by side (the suite mostly waits on the server: ~25% of two
  // cores with one worker). Specs in ALONE run one at a time once the others have finished.
  workers: 2,
  // A stray test.only would quietly run one test instead of the suite.
  forbidOnly: !!process.env.CI,
  fullyParallel: false,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    baseURL,
    screenshot: "on",
    trace: "retain-on-failure",
    viewport: { width: 1360, height: 900 },
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: chromiumFlags },
  },
  projects: [
    { name: "setup", testMatch: /global\.setup\.ts/ },
    { name: "api", testMatch: /api\/.*\.spec\.ts/, dependencies: ["setup"], use: { storageState: adminStatePath } },
    { name: "ui", testMatch: /ui\/.*\.spec\.ts/, testIgnore: alone, dependencies: ["setup"], use: { storageState: adminStatePath } },
    { name: "ui-alone", testMatch: alone, dependencies: ["ui", "api"], workers: 1, use: { storageState: adminStatePath } },
  ],
  webServer: {
    // The build opens the embedded database too (instrumentation runs while pages are collected):
    // it gets a throwaway data dir, so its exiting workers never hold the lock `npm start` needs.
    // EASEL_E2E_SKIP_BUILD=1 starts the build already in .next (CI builds once for every step).
    command: process.env.EASEL_E2E_SKIP_BUILD === "1" ? "npm start" : `EASEL_DATA_DIR='${path.join(dataDir, "build")}' npm run build && npm start`,
    url: `${baseURL}/login`,
    timeout: 900_000,
    // For iterating on tests: a server you started on this port, with EASEL_E2E_DATA_DIR set to its fresh data dir.
    reuseExistingServer: process.env.EASEL_E2E_REUSE === "1",
    stdout: "pipe",
    stderr: "pipe",
    env: {
      PORT: String(port),
      EASEL_DATA_DIR: dataDir,
      EASEL_TEST_CLOCK: "1",
      EASEL_WEBHOOK_ALLOW_PRIVATE: "1",
      NEXT_TELEMETRY_DISABLED: "1",
    },
  },
});
