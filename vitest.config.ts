import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Tests that assert a latency (event-loop delay, another tenant's p99, equal timings) measure the
 * machine as much as the code when other test files share its two cores. They run in a group of
 * their own, one file at a time, after every other file has finished.
 */
const LATENCY_TESTS = ["tests/security/sign-in.test.ts", "tests/security/board-scale.test.ts", "tests/security/fields-bomb.test.ts", "tests/security/largest-inputs.test.ts"];

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
          exclude: [...configDefaults.exclude, ...LATENCY_TESTS],
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
