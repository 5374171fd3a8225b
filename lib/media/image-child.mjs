// The media child for images: `node image-child.mjs <file> <out dir>`, started by
// lib/media/render-image.ts under the media limits. It measures the image, names its colours and
// renders its thumbnails into <out dir>, writing one JSON line per step to stdout as each ends,
// so a step that goes over a limit loses only itself and what comes after it.
import fs from "node:fs";
import path from "node:path";
import { dominantColors, imageSize, imageSource, renderThumbnails } from "./image-work.mjs";

const [file, outDir] = process.argv.slice(2);

/** @param {Record<string, unknown>} line */
const say = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

/**
 * @param {string} step
 * @param {() => Promise<unknown>} work
 */
async function step(step, work) {
  try {
    say({ step, ok: await work() });
  } catch (err) {
    // The parent records what was lost and why (the file's failure, or a limit).
    say({ step, error: String((err && /** @type {Error} */ (err).message) || err) });
  }
}

const source = await imageSource(file);
if (!source) {
  say({ step: "source", error: "too_large" });
} else {
  await step("measure", () => imageSize(source));
  await step("colors", () => dominantColors(source));
  await step("thumbnails", async () => {
    const made = [];
    for (const t of await renderThumbnails(source)) {
      const out = path.join(outDir, `thumb-${t.size}.jpg`);
      await fs.promises.writeFile(out, t.body);
      made.push({ size: t.size, file: out, width: t.width, height: t.height });
    }
    return made;
  });
}
