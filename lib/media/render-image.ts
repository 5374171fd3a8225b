import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Thumbnail } from "../db/schema";
import { log } from "../log/logger.mjs";
import { MediaLimitError } from "../sandbox/limit-error";
import { mediaLimits } from "../sandbox/limits";
import { looksLikeMemoryLimit, runLimited } from "../sandbox/run-limited";

export type RenderedImage = {
  size: { width?: number; height?: number };
  colors: string[];
  thumbnails: { size: Thumbnail["size"]; file: string; width: number; height: number }[];
  /** The limit a step went over; the steps after it were not made. */
  limit: MediaLimitError | null;
};

type StepLine = { step: string; ok?: unknown; error?: string };

/**
 * The child's entry file, found on disk at run time: beside this module's source (vitest, tsx,
 * and Next.js's server bundle, whose `import.meta.url` names the source file), else in the
 * project the server was started from. The server never imports it: it is a separate program.
 */
function childEntry(): string {
  const candidates = [path.join(path.dirname(fileURLToPath(import.meta.url)), "image-child.mjs"), path.join(process.cwd(), "lib", "media", "image-child.mjs")];
  const found = candidates.find((file) => fs.existsSync(file));
  if (!found) throw new Error(`the image child is missing (looked for ${candidates.join(", ")})`);
  return found;
}

function parseLines(stdout: string): StepLine[] {
  return stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as StepLine);
}

/**
 * Measures an image, names its colours and renders its thumbnails into `outDir`, in a child
 * process under the media limits (lib/sandbox/run-limited.ts). What the child finished before a
 * limit stopped it is kept. A step that failed on the file's own terms is logged and left out,
 * as before; one that failed for want of memory under the limit becomes the `limit`.
 */
export async function renderImage(assetId: number, file: string, outDir: string): Promise<RenderedImage> {
  const result: RenderedImage = { size: {}, colors: [], thumbnails: [], limit: null };
  let stdout: string;
  try {
    ({ stdout } = await runLimited(process.execPath, [childEntry(), file, outDir], { what: "the image render" }));
  } catch (err) {
    if (!(err instanceof MediaLimitError)) throw err;
    result.limit = err;
    stdout = (err as MediaLimitError & { stdout?: string }).stdout ?? "";
  }
  for (const line of parseLines(stdout)) {
    if (line.error === "too_large" && line.step === "source") {
      log().info({ component: "media", asset_id: assetId, step: "thumbnails" }, "processing: a vector image too large to render; the asset is saved without thumbnails");
    } else if (line.error !== undefined) {
      if (!result.limit && looksLikeMemoryLimit(null, line.error)) {
        const mb = Math.round(mediaLimits().memoryBytes / (1024 * 1024));
        result.limit = new MediaLimitError("memory_limit", `the image render (${line.step}) needed more than its memory limit of ${mb} MB`, line.error);
      }
      log().warn({ component: "media", asset_id: assetId, step: line.step, err: line.error }, `processing: ${line.step} failed; the asset is saved without it`);
    } else if (line.step === "measure") result.size = line.ok as RenderedImage["size"];
    else if (line.step === "colors") result.colors = line.ok as string[];
    else if (line.step === "thumbnails") result.thumbnails = line.ok as RenderedImage["thumbnails"];
  }
  return result;
}
