import fs from "node:fs";
import path from "node:path";

/** Where playwright.config.ts put this run's server: its data dir and address. */
export const dataDir = process.env.EASEL_E2E_DATA_DIR ?? "";
export const baseURL = process.env.EASEL_E2E_BASE_URL ?? "";
if (!dataDir || !baseURL) throw new Error("run the e2e tests with `npm run test:e2e` (playwright.config.ts sets the data dir)");

export const ADMIN = { email: "e2e-admin@easel.test", password: "e2e-password-1" };

/** The seeded workspaces: team plan on s3, pro on gcs, free on s3. */
export const WORKSPACES = { s3: "e2e-s3", gcs: "e2e-gcs", free: "e2e-free" } as const;

/** What global.setup.ts made, for the specs. */
export type Seed = {
  tokens: { s3: string; gcs: string; free: string };
  files: { image: string; imageB: string; imageC: string; video: string; big: string; notAVideo: string };
};

const seedPath = () => path.join(dataDir, "seed.json");
export const writeSeed = (s: Seed) => fs.writeFileSync(seedPath(), JSON.stringify(s, null, 2));

let loaded: Seed | null = null;
const load = () => (loaded ??= JSON.parse(fs.readFileSync(seedPath(), "utf8")) as Seed);

/**
 * The seed, read on first use: spec files are loaded before the setup project has run, so
 * nothing may read it at import time.
 */
export const seed = {
  workspaces: WORKSPACES,
  get tokens() {
    return load().tokens;
  },
  get files() {
    return load().files;
  },
};
