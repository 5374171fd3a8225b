import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";

// The committed types must be what openapi-typescript makes of the document the server serves now.
it("src/generated matches the OpenAPI document", async () => {
  const script = path.resolve(import.meta.dirname, "../scripts/generate-types.ts");
  const run = await promisify(execFile)(process.execPath, ["--import", "tsx", script, "--check"], { cwd: path.resolve(import.meta.dirname, "..") }).catch((err: { stdout: string; stderr: string; code: number }) => err);
  expect(run.stderr).toBe("");
  expect(run.stdout).toContain("matches the OpenAPI document");
}, 60_000);
