// @ts-check
/**
 * `npm run lint`: TypeScript's recommended rules, React's hook rules, Next.js's rules, and the
 * import rules that keep the layers honest (no import cycles, one import per module, a stable
 * order). CI runs it with zero warnings allowed.
 */
import nextPlugin from "@next/eslint-plugin-next";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import { importX } from "eslint-plugin-import-x";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: [".next/**", "node_modules/**", ".data/**", "drizzle/**", "test-results/**", "playwright-report/**", "next-env.d.ts"] },
  ...tseslint.configs.recommended,
  // React's hook rules where React runs: a server function named use… (useTestDeps) is no hook.
  { files: ["app/**/*.tsx", "lib/client/**/*.{ts,tsx}"], ...reactHooks.configs.flat["recommended-latest"] },
  {
    plugins: { "@next/next": nextPlugin },
    rules: { ...nextPlugin.configs.recommended.rules, ...nextPlugin.configs["core-web-vitals"].rules },
  },
  {
    plugins: { "import-x": importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      "import-x/resolver-next": [createTypeScriptImportResolver({ project: "./tsconfig.json" })],
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "import-x/no-duplicates": "error",
      "import-x/first": "error",
      "import-x/order": ["error", { groups: ["builtin", "external", "internal", "parent", "sibling", "index"], alphabetize: { order: "asc", caseInsensitive: true } }],
    },
  },
  {
    // Tests read answers whose shape the test itself asserts (JSON bodies, SDK errors, harness
    // messages): typing each only to assert it again would add noise, not safety.
    files: ["tests/**", "e2e/**", "**/*.test.ts", "**/*.test.tsx"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
);
