import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { request as playwrightRequest, type APIRequestContext } from "@playwright/test";
import { baseURL, dataDir } from "./env";

/** `npm run easel -- …` against the e2e server's data dir; the last line of stdout. */
export function easel(...args: string[]): string {
  const out = execFileSync("npm", ["run", "-s", "easel", "--", ...args], { env: { ...process.env, EASEL_DATA_DIR: dataDir }, encoding: "utf8" });
  return out.trim().split("\n").at(-1) ?? "";
}

/** A workspace of the spec's own (so its thousands of rows stay out of the shared ones) and a read/write token for it. */
export function gridWorkspace(slug: string): string {
  easel("workspace", "create", slug, "--name", `Grid ${slug}`, "--plan", "team", "--storage", "s3");
  return easel("token", "create", slug, "--scopes", "read,write", "--name", "grid");
}

/** Inserts `count` asset rows on a board at once (e2e/support/seed-assets.ts). */
export function seedAssets(boardToken: string, count: number, prefix: string) {
  const script = fileURLToPath(new URL("./seed-assets.ts", import.meta.url));
  const out = execFileSync("npx", ["tsx", script, boardToken, String(count), prefix], { env: { ...process.env, EASEL_DATA_DIR: dataDir }, encoding: "utf8" });
  if (!out.includes(`seeded ${count}`)) throw new Error(`seeding failed: ${out}`);
}

/** A request context for beforeAll hooks (the `request` fixture is per test). */
export const newRequest = (): Promise<APIRequestContext> => playwrightRequest.newContext({ baseURL });

/** Runs `fn` over `items`, `limit` at a time. */
export async function inBatches<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>) {
  for (let i = 0; i < items.length; i += limit) await Promise.all(items.slice(i, i + limit).map(fn));
}
