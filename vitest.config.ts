import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Tests that assert a latency (event-loop delay, another tenant's p99, equal timings) measure the
 * machine as much as the code when other test files share its two cores. They run in a group of
 * their own, one file at a time, after every other file has finished.
 */
const LATENCY_TESTS = [
  "tests/security/sign-in.test.ts",
  "tests/security/board-scale.test.ts",
  "tests/security/media-bombs.test.ts",
  "tests/reliability/slow-bodies.test.ts",
  "tests/security/fields-bomb.test.ts",
  "tests/security/largest-inputs.test.ts",
  "tests/security/mcp-batch-attack.test.ts",
];

/**
 * Files that run on an embedded data dir of their own whatever database the suite is given (the
 * CLI against a server's PGlite, backup and restore of the embedded data dir, kill -9 of a PGlite
 * job harness): on PostgreSQL (TEST_DATABASE_URL) they would repeat the PGlite run's work exactly,
 * so only the embedded run has them. Each was checked to take nothing from the suite's database
 * (no `inject("testDatabase")`, no shared deps; DATABASE_URL removed from their children's env).
 */
const EMBEDDED_ONLY = [
  "tests/cli/cli.test.ts",
  "tests/cli/members-cli.test.ts",
  "tests/backup/backup-restore.test.ts",
  "tests/backup/consistency.test.ts",
  "tests/backup/restore-refusals.test.ts",
  "tests/video/kill.test.ts",
];
const onPostgres = Boolean(process.env.TEST_DATABASE_URL || process.env.DATABASE_URL);

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    environment: "node",
    // next-auth imports "next/server" without the extension Node's ESM resolution needs: Vite resolves it instead.
    server: { deps: { inline: ["next-auth"] } },
    globalSetup: ["tests/setup/global.ts"],
    setupFiles: ["tests/setup/per-file.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: more workers only add PGlite instances (~0.3 GB each) without more speed.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "suite",
          include: ["lib/**/*.test.ts", "tests/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...LATENCY_TESTS, ...(onPostgres ? EMBEDDED_ONLY : [])],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: "latency", include: LATENCY_TESTS, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
