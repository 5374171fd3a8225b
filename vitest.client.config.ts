import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * `npm run test:client`: the @easel/client package. Its unit tests (packages/client/test: retries,
 * backoff, aborts, progress, resume, against local fault-injecting servers; the generated types
 * against the OpenAPI document) need nothing else; tests/client runs the `easel-client` command
 * and the library against a build (this checkout's `.next`, or EASEL_APP_DIR) started as
 * `npm start` starts it, with one server for its files (the global setup). Kept out of `npm test`,
 * which needs no build.
 */
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 180_000,
    projects: [
      { extends: true, test: { name: "client-unit", include: ["packages/client/test/**/*.test.ts"] } },
      {
        extends: true,
        test: { name: "client-server", include: ["tests/client/**/*.client.ts"], globalSetup: ["tests/client/global-setup.ts"], fileParallelism: false, maxWorkers: 1 },
      },
    ],
  },
});
