import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * `npm run test:scale`: tests/scale runs two server processes (`npm start`) of a build (this checkout's
 * `.next`, or EASEL_APP_DIR) on one PostgreSQL (TEST_DATABASE_URL or DATABASE_URL: a database of
 * its own is created on that server) and one S3-compatible bucket. Kept out of `npm test`, which
 * needs no build.
 */
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    environment: "node",
    include: ["tests/scale/**/*.scale.ts"],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    maxWorkers: 1,
  },
});
