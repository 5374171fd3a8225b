import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * `npm run test:clients`: tests/clients drives the real S3 tools (Debian's rclone, s3cmd and
 * awscli, which must be installed: a missing one fails the run) against a build (this checkout's
 * `.next`, or EASEL_APP_DIR) started as `npm start` starts it, on the embedded database and store.
 * Kept out of `npm test`, which needs no build. One server for the run (the global setup); one file
 * at a time, each in buckets of its own.
 */
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    environment: "node",
    include: ["tests/clients/**/*.clients.ts"],
    globalSetup: ["tests/clients/global-setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    fileParallelism: false,
    maxWorkers: 1,
  },
});
