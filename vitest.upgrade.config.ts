import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * `npm run test:upgrade`: earlier releases (lib/db/check-migrations/releases.json) built from their
 * commits, given data, then upgraded to this checkout's build (`.next`, or EASEL_APP_DIR), on the
 * embedded database and on PostgreSQL (TEST_DATABASE_URL). Kept out of `npm test`: it needs builds.
 */
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    environment: "node",
    include: ["tests/upgrade/**/*.upgrade.ts"],
    testTimeout: 600_000,
    hookTimeout: 1_200_000,
    fileParallelism: false,
    maxWorkers: 1,
  },
});
