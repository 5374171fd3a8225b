import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    environment: "node",
    // next-auth imports "next/server" without the extension Node's ESM resolution needs: Vite resolves it instead.
    server: { deps: { inline: ["next-auth"] } },
    include: ["lib/**/*.test.ts", "tests/**/*.test.ts"],
    globalSetup: ["tests/setup/global.ts"],
    setupFiles: ["tests/setup/per-file.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two cores: more workers only add PGlite instances (~0.3 GB each) without more speed.
    maxWorkers: 2,
  },
});
