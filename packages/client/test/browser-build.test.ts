import path from "node:path";
import { build } from "esbuild";
import { expect, it } from "vitest";

/**
 * A browser bundle of the package, as a bundler makes it (the "browser" condition of its
 * exports and imports): it must build with no Node built-in (esbuild's browser platform refuses
 * to resolve one) and take hash-wasm's md5, not node:crypto's.
 */
it("bundles for the browser without any Node API", async () => {
  const result = await build({
    stdin: { contents: 'export * from "@easel/client";', resolveDir: path.resolve(import.meta.dirname, "..") },
    bundle: true,
    write: false,
    platform: "browser",
    format: "esm",
    conditions: ["browser"],
    metafile: true,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs);
  expect(inputs.some((i) => i.endsWith("src/browser.ts"))).toBe(true);
  expect(inputs.some((i) => i.endsWith("src/md5/md5.browser.ts"))).toBe(true);
  expect(inputs.filter((i) => i.startsWith("node:") || i.endsWith("md5.node.ts") || i.endsWith("src/index.ts") || i.includes("/cli/"))).toEqual([]);
});
